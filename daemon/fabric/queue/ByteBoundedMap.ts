/**
 * A map that holds at most about `maxBytes` of values, measured as JSON length, dropping the
 * oldest entries first. The newest entry always stays, however large, so that a reader who
 * asks right after it was stored still finds it.
 */
export class ByteBoundedMap<V> {
  private readonly entries = new Map<string, { value: V; bytes: number }>();
  private totalBytes = 0;

  constructor(readonly maxBytes: number) {
    if (!(maxBytes > 0)) throw new Error(`a byte bound must be positive (got ${maxBytes})`);
  }

  get size(): number {
    return this.entries.size;
  }

  /** Approximate bytes held (JSON length of the values). */
  get bytes(): number {
    return this.totalBytes;
  }

  has(key: string): boolean {
    return this.entries.has(key);
  }

  get(key: string): V | undefined {
    return this.entries.get(key)?.value;
  }

  /** Stores `value` as the newest entry, then drops the oldest ones while over the bound. */
  set(key: string, value: V): void {
    this.delete(key);
    const bytes = JSON.stringify(value)?.length ?? 0;
    this.entries.set(key, { value, bytes });
    this.totalBytes += bytes;
    for (const [oldest, entry] of this.entries) {
      if (this.totalBytes <= this.maxBytes || oldest === key) break;
      this.entries.delete(oldest);
      this.totalBytes -= entry.bytes;
    }
  }

  delete(key: string): boolean {
    const entry = this.entries.get(key);
    if (!entry) return false;
    this.entries.delete(key);
    this.totalBytes -= entry.bytes;
    return true;
  }

  /** Oldest first. */
  values(): V[] {
    return [...this.entries.values()].map((entry) => entry.value);
  }
}
