// A result's snippet (docs/api.md "Search"): a short stretch of the item's text around its first
// match, cut at word boundaries, with the words that matched marked. Made here rather than by the
// engines (FTS5 `snippet()`, `ts_headline`) so that both databases give the same snippet, and
// because `ts_headline` would not mark an accented word the unaccented query found.
import { escapeHtml } from '../lib/html.ts';
import { fold, type Term } from './search.query.ts';

/** A piece of the snippet's text; `match`: one of the words the query found. */
export interface SnippetPart {
  text: string;
  match: boolean;
}

/** Characters of text around the first match, about. */
const BEFORE = 40;
const LENGTH = 160;
const WORD = /[\p{L}\p{N}\p{M}]+/gu;

interface Token {
  start: number;
  end: number;
  folded: string;
}

function matches(token: Token, word: string, prefix: boolean): boolean {
  return prefix ? token.folded.startsWith(word) : token.folded === word;
}

/** Which tokens the terms match: every occurrence of each word, or of each phrase in order. */
function matchedTokens(tokens: readonly Token[], terms: readonly Term[]): Set<number> {
  const marked = new Set<number>();
  for (const term of terms) {
    const words = term.words.map(fold);
    for (let i = 0; i + words.length <= tokens.length; i++) {
      const all = words.every((word, k) => matches(tokens[i + k]!, word, term.prefix && k === words.length - 1));
      if (all) for (let k = 0; k < words.length; k++) marked.add(i + k);
    }
  }
  return marked;
}

/** The snippet of `text` for `terms`, as parts. */
export function snippetOf(text: string, terms: readonly Term[]): SnippetPart[] {
  const tokens: Token[] = [...text.matchAll(WORD)].map((m) => ({
    start: m.index,
    end: m.index + m[0].length,
    folded: fold(m[0]),
  }));
  const marked = matchedTokens(tokens, terms);
  const first = tokens.findIndex((_, i) => marked.has(i));
  // Start a few words before the first match, at a word's start; end at a word's end.
  const anchor = first === -1 ? 0 : tokens[first]!.start;
  const startToken = tokens.find((token) => token.start >= anchor - BEFORE && token.start <= anchor);
  const start = first <= 0 || !startToken ? 0 : startToken.start;
  const inside = tokens.filter((token) => token.start >= start && token.end <= start + LENGTH);
  const end =
    text.length - start <= LENGTH ? text.length : (inside.at(-1)?.end ?? Math.min(text.length, start + LENGTH));
  const parts: SnippetPart[] = [];
  const push = (piece: string, match: boolean) => {
    if (piece === '') return;
    const last = parts.at(-1);
    if (last && last.match === match) last.text += piece;
    else parts.push({ text: piece, match });
  };
  if (start > 0) push('…', false);
  let at = start;
  tokens.forEach((token, i) => {
    if (!marked.has(i) || token.start < start || token.end > end) return;
    push(text.slice(at, token.start), false);
    push(text.slice(token.start, token.end), true);
    at = token.end;
  });
  push(text.slice(at, end), false);
  if (end < text.length) push('…', false);
  // Line breaks and runs of spaces mean nothing in one line of snippet.
  return parts.map((part) => ({ ...part, text: part.text.replace(/\s+/g, ' ') }));
}

/** The API's form: HTML-escaped text with each match in `<mark>…</mark>`. */
export function snippetHtml(parts: readonly SnippetPart[]): string {
  return parts.map((part) => (part.match ? `<mark>${escapeHtml(part.text)}</mark>` : escapeHtml(part.text))).join('');
}
