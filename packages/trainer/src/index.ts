export { registerEnvCommands } from './cli/env-commands.js';
export { initBackend, backendInfo, type BackendInfo, type BackendChoice } from './backend.js';
export { train, rolloutSettings, type TrainOptions, type TrainResult } from './train/loop.js';
export { MemorySink, type TrainSink, type CheckpointPayload, type RunStatus } from './train/sink.js';
export { FileSink, trajectoryRecord, latestCheckpoint } from './train/file-sink.js';
export { loadBaseModel } from './train/models.js';
export { pretrain, PRETRAIN_DEFAULTS, type PretrainOptions, type PretrainResult } from './pretrain/pretrain.js';
export { modelFiles, saveModelDir, loadModelDir, type ModelBundle } from './model/storage.js';
export type { Trajectory, RolloutTurn } from './rollout/types.js';
