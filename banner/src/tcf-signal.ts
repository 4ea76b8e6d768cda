/**
 * The TCF strings of the visitor's choice, for the consent the banner records (`tc_string`,
 * `ac_string`): set by the TCF file when the visitor chooses, or from the stored choice.
 */

export interface TcfSignal {
  tc_string: string;
  /** Google's Additional Consent string; null when the account names no ad technology provider. */
  ac_string: string | null;
}

let signal: TcfSignal | undefined;

export function setTcfSignal(value: TcfSignal): void {
  signal = value;
}

/** The fields the consent records: none without TCF, or before the TCF file knows the choice. */
export function tcfFields(): Partial<TcfSignal> {
  return signal ? { ...signal } : {};
}
