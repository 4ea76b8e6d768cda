import { ValidationError } from './app-errors.ts';
import { humanize } from './validation-messages.ts';

/** Collects 422 sentences, then throws them together. */
export class Problems {
  private readonly messages: string[] = [];

  add(field: string, problem: string): this {
    this.messages.push(`${humanize(field)} ${problem}`);
    return this;
  }

  /** Trims a required text; blank (or whitespace) is `can't be blank`. */
  required(field: string, value: string | undefined): string {
    const trimmed = value?.trim() ?? '';
    if (trimmed === '') this.add(field, "can't be blank");
    return trimmed;
  }

  throwIfAny(): void {
    if (this.messages.length > 0) throw new ValidationError(this.messages);
  }
}
