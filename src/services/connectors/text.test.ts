// Fitting a text to a target's limit: word boundaries, graphemes, Mastodon's link rule.
import { describe, expect, it } from 'vitest';
import { fitText, graphemeLength, mastodonLength } from './text.ts';

const LINK = 'https://way.example/@alice/01KAB0000000000000000000AA';
const SHORT = 'https://w.x/1';

describe('graphemeLength', () => {
  it('counts what a reader sees as one character once', () => {
    expect(graphemeLength('👨‍👩‍👧')).toBe(1);
    expect(graphemeLength('e\u0301')).toBe(1);
    expect(graphemeLength('🇩🇪 ok')).toBe(4);
  });
});

describe('mastodonLength', () => {
  it('counts each link as the reserved length and the rest in code points', () => {
    expect(mastodonLength(`see ${LINK} now`)).toBe(4 + 23 + 4);
    expect(mastodonLength(`see ${LINK}`, 30)).toBe(4 + 30);
    expect(mastodonLength('😀😀')).toBe(2);
  });
});

describe('fitText', () => {
  it('leaves a text within the limit as it is', () => {
    expect(fitText('short enough', 12, SHORT, graphemeLength)).toBe('short enough');
  });

  it('cuts at the last word that fits and ends with an ellipsis and the link', () => {
    const text = 'one two three four five six seven eight nine ten';
    // With "four" it would be 33 graphemes.
    expect(fitText(text, 31, SHORT, graphemeLength)).toBe(`one two three… ${SHORT}`);
    expect(fitText(text, 33, SHORT, graphemeLength)).toBe(`one two three four… ${SHORT}`);
  });

  it('never splits a grapheme, and cuts a single long word between graphemes', () => {
    const text = '👨‍👩‍👧'.repeat(50);
    expect(fitText(text, 18, SHORT, graphemeLength)).toBe(`${'👨‍👩‍👧'.repeat(3)}… ${SHORT}`);
  });

  it('measures with the given rule: a link in the text counts as Mastodon counts it', () => {
    const url = 'https://example.com/a/very/long/path/that/goes/on/and/on';
    const text = `read ${url} and then more words here and more`;
    // "read <url>" is 28, "… <link>" 25: 53; with " and" 57.
    expect(fitText(text, 55, LINK, mastodonLength)).toBe(`read ${url}… ${LINK}`);
    expect(fitText(text, 57, LINK, mastodonLength)).toBe(`read ${url} and… ${LINK}`);
  });

  it('gives only the link when not even one grapheme fits beside it', () => {
    expect(fitText('abcdefghijklmnopqrstuvwxyz', 15, SHORT, graphemeLength)).toBe(SHORT);
  });
});
