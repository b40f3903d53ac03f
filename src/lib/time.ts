// The API speaks Unix epoch seconds with a fractional part (docs/api.md "General rules"); the
// database stores integer milliseconds, so keyset comparisons are exact.

export function nowMs(): number {
  return Date.now();
}

export function msToSeconds(ms: number): number {
  return ms / 1000;
}

export function secondsToMs(seconds: number): number {
  return Math.round(seconds * 1000);
}
