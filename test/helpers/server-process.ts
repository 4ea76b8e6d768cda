import { startChild, type Child } from '../../bench/processes.ts';
import { builtEntry } from './built-entries.ts';

/**
 * The real server (the bundle of src/server.ts) in its own process, ready when /readyz answers 200.
 * No shutdown grace unless the test asks for one: a stop then takes no longer than its work.
 */
export function startServer(env: Record<string, string>): Promise<Child> {
  return startChild(builtEntry('server'), { LOG_LEVEL: 'warn', SHUTDOWN_GRACE_S: '0', ...env }, '/readyz');
}
