// What an app may register about itself at /oauth/register (RFC 7591), beyond oidc-provider's
// own checks: bounded sizes, plain http only on the loopback interface, and no name that passes
// for Waypost's own (docs/oauth.md "Self-registration"). Only self-registration is held to
// these rules; the operator's `waypost client add` is trusted.

/** The most redirect URIs one app may register. */
export const MAX_REDIRECT_URIS = 10;
/** The longest redirect URI, in characters. */
export const MAX_URI_LENGTH = 1000;
/** The longest client_name, in characters (code points). */
export const MAX_NAME_LENGTH = 64;
/** The whole metadata as JSON, in characters: bounds the fields not named above (contacts, logo_uri, ...). */
export const MAX_METADATA_LENGTH = 16_000;
/**
 * How long an app that registered itself is kept unless a person approves it (a Grant is
 * stored for it): registering costs a stranger nothing, so what nobody uses does not stay.
 */
export const UNAPPROVED_APP_TTL_MS = 24 * 60 * 60 * 1000;

// RFC 8252 7.3: "Loopback redirect URIs use the "http" scheme"; everywhere else plain http lets
// anyone on the path read the code. URL parsing normalises the host (LOCALHOST, 127.1, 0x7f.1).
const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

// Letters and digits that read as the letters of "waypost" (a few of Unicode's confusables,
// UTS #39): enough against the obvious imitations. The consent page marks every self-registered
// app as a third party anyway, so a name that slips through still does not pass for Waypost.
const LOOKALIKES: Record<string, string> = {
  '0': 'o',
  '@': 'a',
  '4': 'a',
  '5': 's',
  $: 's',
  '7': 't',
  '+': 't',
  а: 'a', // Cyrillic
  о: 'o',
  р: 'p',
  ѕ: 's',
  т: 't',
  у: 'y',
  ү: 'y',
  ԝ: 'w',
  ѡ: 'w',
  α: 'a', // Greek
  ο: 'o',
  ρ: 'p',
  τ: 't',
  υ: 'y',
  γ: 'y',
  ω: 'w',
  ɑ: 'a', // Latin alpha
};

/** A name reduced to what it reads as: compatibility forms folded, accents, case, spacing and punctuation gone. */
export function skeleton(text: string): string {
  return [...text.normalize('NFKD').toLowerCase()]
    .map((char) => LOOKALIKES[char] ?? char)
    .join('')
    .replace(/[^\p{L}\p{N}]/gu, '')
    .replaceAll('vv', 'w');
}

/** Whether a name would read as Waypost's own, or as this server's host name. */
export function imitatesServer(name: string, serverHost: string): boolean {
  const reads = skeleton(name);
  if (reads.includes('waypost')) return true;
  // An IP address or `localhost` names no one; a domain name is the server's own.
  const isName = /[a-z]/i.test(serverHost) && serverHost.includes('.') && !serverHost.startsWith('[');
  return isName && reads.includes(skeleton(serverHost));
}

/**
 * Why this self-registration is refused, or undefined. oidc-provider answers a description that
 * starts with "redirect_uris" as `invalid_redirect_uri`, any other as `invalid_client_metadata`
 * (RFC 7591 3.2.2). Values of the wrong type are left to oidc-provider's own checks, which run after.
 */
export function registrationProblem(metadata: Record<string, unknown>, serverHost: string): string | undefined {
  const uris = metadata.redirect_uris;
  if (Array.isArray(uris)) {
    if (uris.length > MAX_REDIRECT_URIS) return `redirect_uris may hold at most ${MAX_REDIRECT_URIS} URIs`;
    for (const uri of uris) {
      if (typeof uri !== 'string') continue;
      if (uri.length > MAX_URI_LENGTH) return `redirect_uris may be at most ${MAX_URI_LENGTH} characters each`;
      const url = URL.parse(uri);
      if (url?.protocol === 'http:' && !LOOPBACK_HOSTS.has(url.hostname)) {
        return 'redirect_uris may use http only on the loopback interface (127.0.0.1, [::1] or localhost, RFC 8252 7.3); use https elsewhere';
      }
    }
  }
  const name = metadata.client_name;
  if (typeof name === 'string') {
    if ([...name].length > MAX_NAME_LENGTH) return `client_name may be at most ${MAX_NAME_LENGTH} characters`;
    // Control and format characters (zero-width joiners, bidirectional overrides) hide or reorder
    // what the consent page shows.
    if (/[\p{Cc}\p{Cf}\p{Co}\p{Cn}\p{Zl}\p{Zp}]/u.test(name)) {
      return 'client_name must not contain control or invisible characters';
    }
    if (imitatesServer(name, serverHost)) {
      return "client_name must not look like Waypost's or this server's own name: an app that registers itself is a third party";
    }
  }
  if (JSON.stringify(metadata).length > MAX_METADATA_LENGTH) {
    return `client metadata may be at most ${MAX_METADATA_LENGTH} characters of JSON`;
  }
  return undefined;
}
