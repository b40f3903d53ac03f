// Settings: default scopes, time zone, public location precision (with what rounding does),
// display name and bio; export and account deletion links.
import { html, type Html } from '../account/html.ts';
import type { Scope, SettingsObject } from './api-types.ts';
import type { AppPage } from './page.ts';

const PRECISIONS = [0, 100, 500, 1000, 5000, 10000, 50000];

function scopeChoice(kind: 'posts' | 'media' | 'locations', current: Scope): Html {
  return html`<label for="scope-${kind}">New ${kind}</label>
    <select id="scope-${kind}" name="default_scopes.${kind}">
      <option value="public" ${current === 'public' ? html`selected` : ''}>Public</option>
      <option value="private" ${current === 'private' ? html`selected` : ''}>Private</option>
    </select>`;
}

function precisionLabel(m: number): string {
  if (m === 0) return 'Exact (no rounding)';
  return m >= 1000 ? `${m / 1000} km grid` : `${m} m grid`;
}

export const settingsPage: AppPage = {
  path: '/app/settings',
  title: 'Settings',
  narrow: true,
  render: async (ctx) => {
    const s = (await ctx.api<SettingsObject>('/settings')).data;
    const zones = Intl.supportedValuesOf('timeZone');
    if (!zones.includes(s.timezone)) zones.unshift(s.timezone);
    const precisions = PRECISIONS.includes(s.public_location_precision_m)
      ? PRECISIONS
      : [...PRECISIONS, s.public_location_precision_m].sort((a, b) => a - b);
    const body = html`<h1>Settings</h1>
      <form data-api="POST /settings" data-done="Saved." class="card">
        <h2>Profile</h2>
        <label for="display_name">Display name</label>
        <input id="display_name" name="display_name" maxlength="100" value="${s.display_name}" />
        <label for="bio">Bio</label>
        <textarea id="bio" name="bio" maxlength="2000">${s.bio}</textarea>

        <h2>Time</h2>
        <label for="timezone">Time zone</label>
        <select id="timezone" name="timezone" aria-describedby="timezone-help">
          ${zones.map((z) => html`<option ${z === s.timezone ? html`selected` : ''}>${z}</option>`)}
        </select>
        <span class="help" id="timezone-help">The timeline groups items by day in this zone.</span>

        <h2>Default scopes</h2>
        <p class="help">What a new item gets when the app that creates it does not say.</p>
        ${scopeChoice('posts', s.default_scopes.posts)} ${scopeChoice('media', s.default_scopes.media)}
        ${scopeChoice('locations', s.default_scopes.locations)}

        <h2>Public location precision</h2>
        <label for="precision">Round public places to</label>
        <select id="precision" name="public_location_precision_m" data-type="number" aria-describedby="precision-help">
          ${precisions.map(
            (m) =>
              html`<option value="${m}" ${m === s.public_location_precision_m ? html`selected` : ''}>
                ${precisionLabel(m)}
              </option>`,
          )}
        </select>
        <span class="help" id="precision-help">
          Strangers see your public points, and the places of public posts and media, moved to the nearest corner of a
          grid of this size: with 1 km, a photo taken in your garden shows a spot up to about 700 m away, shared by
          everything nearby, so your street cannot be read from it. You always see your exact places. Private items are
          never shown to strangers at all.
        </span>
        <button type="submit">Save settings</button>
      </form>

      <h2>Your data</h2>
      <p>
        <a class="button secondary" href="/export" download>Export everything</a>
        <span class="help">One ZIP file with every post, file and location, private ones included.</span>
      </p>
      <p><a href="/account/delete">Delete your account</a> and all its data.</p>`;
    return { body };
  },
};
