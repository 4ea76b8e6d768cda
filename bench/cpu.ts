import { readdirSync, readFileSync } from 'node:fs';

/**
 * CPU time spent by the processes of a run, from /proc (Linux; elsewhere every figure is 0), so
 * that each scenario can say what one request costs the server, PostgreSQL and the load generator.
 * On a shared machine the throughput ratios are bounded by these costs added together.
 */
const TICK_MS = 10; // USER_HZ is 100 on Linux

/** The fields of /proc/<pid>/stat after the command name (which may hold spaces); undefined once gone. */
function statFields(pid: number | string): string[] | undefined {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  } catch {
    return undefined;
  }
}

function processMs(pid: number): number {
  const fields = statFields(pid);
  // utime and stime are the 12th and 13th fields after the name.
  return fields ? (Number(fields[11]) + Number(fields[12])) * TICK_MS : 0;
}

/** The process and its children (the workers of `BENCH_PROCESSES`): their ids. */
export function processTree(pid: number): number[] {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return [pid];
  }
  // The parent's id is the 2nd field after the name.
  return [pid, ...pids.filter((child) => statFields(child)?.[1] === String(pid)).map(Number)];
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

/** `serverPid`: the process under load, with its children; the load generator is this process (autocannon runs in it). */
export function sampleCpu(serverPid: number | undefined): CpuSample {
  const own = process.cpuUsage();
  return {
    server: serverPid ? processTree(serverPid).reduce((sum, pid) => sum + processMs(pid), 0) : 0,
    postgres: postgresMs(),
    load: (own.user + own.system) / 1000,
  };
}

/** Microseconds of CPU per request between two samples. */
export function perRequest(before: CpuSample, after: CpuSample, requests: number): CpuSample {
  const us = (key: keyof CpuSample) => (requests > 0 ? Math.round(((after[key] - before[key]) * 1000) / requests) : 0);
  return { server: us('server'), postgres: us('postgres'), load: us('load') };
}
