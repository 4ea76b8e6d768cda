import { startChild, type Child } from '../../bench/processes.ts';

/** The real server (src/server.ts) in its own process, ready when /readyz answers 200. */
export function startServer(env: Record<string, string>): Promise<Child> {
  return startChild(['--import', 'tsx', 'src/server.ts'], { LOG_LEVEL: 'warn', ...env }, '/readyz');
}
