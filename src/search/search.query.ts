// What a person types into a search box, read once into terms, then written as each engine's
// query (docs/api.md "Search"). The syntax is small and forgiving: words (all must match),
// "quoted phrases", and a `*` right after a word for a prefix (`marath*`). Everything that is not
// a letter, digit or mark only separates words, so no input can reach an engine as syntax: the
// engine queries are built here from words made of letters and digits alone. An input with no
// word, too many words or a too short prefix is 400, never a 500.
import { invalid } from '../core/errors.ts';

/** A word, or a phrase of several in order; `prefix`: the last word is a prefix. */
export interface Term {
  words: string[];
  prefix: boolean;
}

export const QUERY_MAX = 500;
export const TERMS_MAX = 16;
export const WORDS_MAX = 32;
/** A prefix shorter than this would match most of the index. */
export const PREFIX_MIN = 2;

const WORD = /[\p{L}\p{N}\p{M}]+/gu;

function refuse(message: string): never {
  throw invalid('The search is invalid', [{ path: 'querystring/q', message }]);
}

/** Lower case, without accents: how the snippet compares words (the engines fold alike). */
export function fold(word: string): string {
  return word.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();
}

function wordsOf(text: string): { words: string[]; prefix: boolean } {
  const words: string[] = [];
  let prefix = false;
  for (const match of text.matchAll(WORD)) {
    words.push(match[0].normalize('NFC'));
    prefix = text[match.index + match[0].length] === '*';
  }
  return { words, prefix };
}

/** The terms of a query, or 400 naming `querystring/q`. */
export function parseQuery(q: string): Term[] {
  if (q.length > QUERY_MAX) refuse(`must be at most ${QUERY_MAX} characters`);
  const terms: Term[] = [];
  // Quoted parts are phrases (an unclosed quote runs to the end); the rest is single words.
  const parts = q.split('"');
  parts.forEach((part, index) => {
    if (index % 2 === 1) {
      const phrase = wordsOf(part);
      // `"new yor"*`: the star right after the closing quote makes the last word a prefix.
      const starred = index + 1 < parts.length && parts[index + 1]!.startsWith('*');
      if (phrase.words.length > 0) terms.push({ words: phrase.words, prefix: phrase.prefix || starred });
      return;
    }
    for (const match of part.matchAll(WORD)) {
      terms.push({ words: [match[0].normalize('NFC')], prefix: part[match.index + match[0].length] === '*' });
    }
  });
  if (terms.length === 0) refuse('must contain a word to search for');
  if (terms.length > TERMS_MAX) refuse(`must contain at most ${TERMS_MAX} words and phrases`);
  if (terms.reduce((sum, term) => sum + term.words.length, 0) > WORDS_MAX) {
    refuse(`must contain at most ${WORDS_MAX} words in all`);
  }
  for (const term of terms) {
    const last = term.words.at(-1)!;
    if (term.prefix && fold(last).length < PREFIX_MIN) {
      refuse(`must have at least ${PREFIX_MIN} letters before each *`);
    }
  }
  return terms;
}

/**
 * FTS5 query syntax: each term a quoted string (several words in one string are a phrase), a
 * `*` after it for a prefix, terms side by side for AND. The words hold no quote, so quoting
 * cannot be escaped out of; the tokenizer folds case and accents as it did for the text.
 */
export function fts5Query(terms: readonly Term[]): string {
  return terms.map((term) => `"${term.words.join(' ')}"${term.prefix ? ' *' : ''}`).join(' AND ');
}

/**
 * `to_tsquery` syntax: each word a quoted lexeme, a phrase's words joined by `<->`, `:*` on a
 * prefix, terms joined by `&`. The database unaccents the text before parsing it and the
 * `simple` configuration lower-cases each lexeme, as for the documents.
 */
export function tsQuery(terms: readonly Term[]): string {
  return terms
    .map((term) => {
      const lexemes = term.words.map((word) => `'${word}'`);
      if (term.prefix) lexemes[lexemes.length - 1] += ':*';
      return lexemes.length === 1 ? lexemes[0]! : `(${lexemes.join(' <-> ')})`;
    })
    .join(' & ');
}
