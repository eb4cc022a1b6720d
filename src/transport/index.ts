/** The worker connection layer: createConnection builds a WorkerConnection for a profile. */
import type { ConnectionFactory } from '../core/worker/types';
import { AgentConnection } from './connection';
import { createTransport } from './factory';

export const createConnection: ConnectionFactory = (profile, env) => new AgentConnection(profile, env, createTransport(profile, env));

export { AgentCommandError, AgentConnection } from './connection';
export { createTransport } from './factory';
export { shCommand, shQuote, viaPosixSh } from './quote';
export { TransportError } from './types';
export type { RemoteProcess, RunResult, WorkerTransport } from './types';
