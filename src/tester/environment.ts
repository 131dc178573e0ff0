// Where a run ran: the store (from the backend's info and the workers' connections) and this
// machine (Node, OS, cores, CPU), for the report and the live view's header.
import os from 'node:os';
import type { ServerInfo } from '../backends/index.js';
import type { TesterConfig } from './config.js';

export interface TesterEnvironment {
  readonly backend: string;
  readonly serverVersion: string;
  readonly schema: string;
  readonly location: string;
  readonly embedded: boolean;
  readonly isolation: string | null;
  readonly dequeue: string;
  readonly node: string;
  readonly platform: string;
  readonly cores: number;
  readonly cpuModel: string;
}

/** isolation: as the workers' connections read it back (null: not reported). */
export function detectEnvironment(info: ServerInfo, config: TesterConfig, isolation: string | null): TesterEnvironment {
  const cpus = os.cpus();
  return {
    backend: info.backend,
    serverVersion: info.serverVersion,
    schema: info.schema,
    // A multi-host target: the server the run's backend opened on (each phase's is the report's).
    location: info.host === undefined ? info.location : `${info.location} (on ${info.host})`,
    embedded: config.createSqlite === true,
    isolation,
    dequeue: config.dequeue,
    node: process.version,
    platform: `${process.platform} ${os.release()} ${process.arch}`,
    cores: os.availableParallelism(),
    cpuModel: cpus[0]?.model ?? 'unknown',
  };
}
