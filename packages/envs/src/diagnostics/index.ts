export { extractClaims, type Claim, type Decision, type Dir, type EntityRef, type EntityType, type Extraction } from './extract.js';
export { verifyClaim, claimPattern, type Checked, type Verdict, type VerifyOptions } from './verify.js';
export { World, describeOffset } from './world.js';
export * from './diagnose.js';
export {
  PRECISION_GOAL,
  RULE_PRECISION_DATA,
  measuredRules,
  precisionKey,
  ruleTrust,
  type MeasuredRule,
  type PrecisionTable,
  type RuleTrust,
} from './rule-gate.js';
export { garbledReason, sentenceForm, type SentenceForm } from './sentence-form.js';
