/** The settings an address to listen on comes from, named in what goes wrong with it. */
export interface ListenSettings {
  hostName: string;
  host: string;
  portName: string;
  port: number;
}

/**
 * One line for an operator whose server could not listen: which setting is wrong and why, or
 * undefined for a failure that is not about the address (then the error itself is the news).
 */
export function describeListenError(error: unknown, { hostName, host, portName, port }: ListenSettings): string | undefined {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  const cause = typeof message === 'string' ? ` (${message})` : '';
  switch (code) {
    case 'EADDRINUSE':
      return `${portName} ${port} is already in use on ${host}${cause}: stop what listens there or choose another ${portName}`;
    case 'EACCES':
      return `${portName} ${port} needs privileges this process does not have${cause}: choose a ${portName} above 1023`;
    case 'EADDRNOTAVAIL':
      return `${hostName} ${host} is not an address of this machine${cause}: set ${hostName} to one of its addresses, or 0.0.0.0 for all`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_NONAME':
      return `${hostName} ${host} does not resolve${cause}: set ${hostName} to an address or host name of this machine`;
    default:
      return undefined;
  }
}
