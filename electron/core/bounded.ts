import { utf8Length } from '../../shared/json.ts';

/** Size limits for what the engine keeps of a task's run (docs/ARCHITECTURE.md, "Bounded"). */
export const BOUNDS = {
  errorChars: 4000,
  outputChars: 16_000,
  resultBytes: 64 * 1024,
} as const;

/** Keeps the first `max` characters, marking the cut. */
export function truncateHead(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… [${text.length - max} more characters]`;
}

/** Keeps the last `max` characters of a growing log: the end is what explains a failure. */
export class TailBuffer {
  private parts: string[] = [];
  private length = 0;
  private dropped = 0;
  private readonly max: number;
  constructor(max: number) {
    this.max = max;
  }

  push(text: string): void {
    this.parts.push(text);
    this.length += text.length;
    while (this.length > this.max && this.parts.length > 1) {
      const first = this.parts.shift()!;
      this.length -= first.length;
      this.dropped += first.length;
    }
    if (this.length > this.max) {
      const only = this.parts[0]!;
      const cut = only.length - this.max;
      this.parts[0] = only.slice(cut);
      this.length = this.max;
      this.dropped += cut;
    }
  }

  text(): string | null {
    if (this.length === 0) return null;
    const body = this.parts.join('');
    return this.dropped > 0 ? `[${this.dropped} earlier characters dropped]\n${body}` : body;
  }
}

/** Serialises a handler's result, replacing one larger than the bound by a marked preview. */
export function boundResult(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (err) {
    return JSON.stringify({ unserialisable: String(err) });
  }
  if (text === undefined) return null;
  const bytes = utf8Length(text);
  if (bytes <= BOUNDS.resultBytes) return text;
  return JSON.stringify({ truncated: true, bytes, preview: text.slice(0, 1000) });
}
