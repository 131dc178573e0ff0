// The tester engine's public face: used by `smq tester`, the live view, tests and bench/.
export { TesterRun, type ProgressSnapshot, type TesterEnvironment, type TesterEvents, type TesterPhase } from './engine.js';
export { validateConfig, ISOLATIONS, DEQUEUE_STRATEGIES, ACK_MODES, READ_MODES, type TesterConfig, type Isolation } from './config.js';
export { type TesterReport, type LatencyReport } from './report.js';
export { formatReport, refText } from './report-text.js';
export { htmlReport } from './html/html-report.js';
export { DeliveryChecker, hasViolations, type CheckerCounts, type MessageRef } from './checker.js';
export type { Faults } from './protocol.js';
export type { SeriesPoint } from './series.js';
export type { BacklogTrend, WorkerRate } from './live-facts.js';
export { parseFaultSpec, type FaultSpec } from './fault-spec.js';
export type { FaultRecord } from './fault-runner.js';
