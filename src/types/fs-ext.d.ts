declare module 'fs-ext' {
  /** flock(2) on an open file descriptor: 'ex'/'sh' lock, 'un' unlock, with 'nb' for non-blocking. */
  export function flockSync(fd: number, flags: 'sh' | 'ex' | 'shnb' | 'exnb' | 'un'): void;
}
