// Where a person's public collections live, for the links a profile shows (their formats are
// built in src/posts/posts.feeds.ts).

/** Where a user's feeds live: the profile links to them. */
export function feedUrls(baseUrl: string, username: string): { atom: string; json_feed: string } {
  const base = `${baseUrl}/posts/public/${encodeURIComponent(username)}`;
  return { atom: `${base}?format=atom`, json_feed: `${base}?format=jsonfeed` };
}
