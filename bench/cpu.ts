import { readdirSync, readFileSync } from 'node:fs';

/**
 * CPU time spent by the processes of a run, from /proc (Linux; elsewhere every figure is 0), so
 * that each scenario can say what one request costs the server, PostgreSQL and the load generator.
 * On a shared machine the throughput ratios are bounded by these costs added together.
 */
const TICK_MS = 10; // USER_HZ is 100 on Linux

function processMs(pid: number): number {
  try {
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return 0;
  }
}

/** Every process named `postgres` on this machine: the server's backends, its WAL writer, and so on. */
function postgresMs(): number {
  let total = 0;
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return 0;
  }
  for (const pid of pids) {
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'postgres') total += processMs(Number(pid));
    } catch {
      // gone meanwhile
    }
  }
  return total;
}

export interface CpuSample {
  server: number;
  postgres: number;
  load: number;
}

/** `serverPid`: the process under load; the load generator is this process (autocannon runs in it). */
export function sampleCpu(serverPid: number | undefined): CpuSample {
  const own = process.cpuUsage();
  return {
    server: serverPid ? processMs(serverPid) : 0,
    postgres: postgresMs(),
    load: (own.user + own.system) / 1000,
  };
}

/** Microseconds of CPU per request between two samples. */
export function perRequest(before: CpuSample, after: CpuSample, requests: number): CpuSample {
  const us = (key: keyof CpuSample) => (requests > 0 ? Math.round(((after[key] - before[key]) * 1000) / requests) : 0);
  return { server: us('server'), postgres: us('postgres'), load: us('load') };
}
