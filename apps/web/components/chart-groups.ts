/** Which metric keys share a chart, in display order; keys matching no group get no chart of their own here. */
export const CHART_GROUPS: { title: string; keys: RegExp; log?: boolean }[] = [
  { title: 'Success', keys: /^(val|train)\/success$/ },
  { title: 'Reward', keys: /^(val|train)\/reward\/mean$/ },
  { title: 'In-group reward std', keys: /^rollout\/(in_group_reward_std|chosen_in_group_reward_std)$/ },
  // actor/entropy too: the entropy-collapse warning reads it, and its link opens this chart
  { title: 'Entropy', keys: /^(train\/entropy|val\/entropy|actor\/entropy)$/ },
  { title: 'Well-formed replies', keys: /^(train|val)\/well_formed_rate$/ },
  { title: 'Valid / effective actions', keys: /^train\/action_is_(valid|effective)$/ },
  // different units, different charts: tokens and characters do not share an axis
  { title: 'Response length (tokens)', keys: /^train\/response_length$/ },
  { title: 'Think length (characters)', keys: /^train\/think_length$/ },
  { title: 'Gradient norm', keys: /^(actor|critic)\/grad_norm$/, log: true },
  { title: 'KL', keys: /^actor\/(kl_ref|ppo_kl|kl_loss)$/ },
  { title: 'Clip fraction', keys: /^actor\/pg_clipfrac(_lower)?$/ },
  { title: 'Policy loss', keys: /^actor\/pg_loss$/ },
  { title: 'Value loss', keys: /^critic\/vf_loss$/ },
  { title: 'Filter kept ratio', keys: /^rollout\/filter_kept_ratio$/ },
  { title: 'Hallucination rate (trajectories)', keys: /^(train|val)\/diag\/hallucination_rate$/ },
  { title: 'Contradicted claims (share of checkable)', keys: /^(train|val)\/diag\/contradicted_claim_rate$/ },
  { title: 'Think–answer mismatch rate', keys: /^(train|val)\/diag\/think_answer_mismatch_rate$/ },
  { title: 'Outcome mismatch rate', keys: /^(train|val)\/diag\/outcome_mismatch_rate$/ },
  { title: 'Distinct-think ratio', keys: /^(train|val)\/diag\/(distinct_think_ratio|template_rate)$/ },
  { title: 'Claims per turn', keys: /^(train|val)\/diag\/claims_per_turn$/ },
  { title: 'Reasoning-free successes', keys: /^(train|val)\/diag\/reasoning_free_success_rate$/ },
  { title: 'Timings (s)', keys: /^timing_s\/(gen|update_actor|update_critic|old_log_prob|ref|testing|step)$/ },
  { title: 'Throughput (tokens/s)', keys: /^perf\/tokens_per_s$/ },
];

/** Built-in metrics without a chart group of their own (shown in the table views, not as charts). */
const UNCHARTED =
  /^(timing_s|perf|critic\/(advantages|returns)|actor\/(lr|loss|entropy_loss|skipped_steps|pg_clipfrac_lower)|rollout\/|train\/(reward\/(min|max|std)|batch_size|num_|[a-z]+\/success)|val\/(reward\/(min|max|std)|num_|action_|response_length|think_length|[a-z]+\/success))/;

/** The known groups that have data, then one chart per remaining key (custom or ingested metrics), up to `maxOther`. */
export function groupKeys(keys: string[], maxOther = 40): { title: string; keys: string[]; log?: boolean }[] {
  const known = CHART_GROUPS.map((g) => ({ title: g.title, log: g.log, keys: keys.filter((k) => g.keys.test(k)) })).filter(
    (g) => g.keys.length > 0,
  );
  const shown = new Set(known.flatMap((g) => g.keys));
  const other = keys
    .filter((k) => !shown.has(k) && !UNCHARTED.test(k))
    .sort()
    .slice(0, maxOther);
  return [...known, ...other.map((k) => ({ title: k, keys: [k] }))];
}
