// Compose: write a post with a live counter, attach files (uploaded at once with a progress bar,
// previewed, captions as alt text), an optional location, the scope and the service groups;
// after posting, each delivery's status until it settles (src/web/assets/compose.js).
import { html } from '../lib/html.ts';
import { info } from '../info/info.logic.ts';
import { listGroups, listServices } from '../services/services.logic.ts';
import { readSettingsObject } from '../settings/settings.api.ts';
import type { AppPage } from './page.ts';

export const composePage: AppPage = {
  path: '/app/compose',
  title: 'Compose',
  narrow: true,
  scripts: ['compose.js'],
  render: async (ctx) => {
    const { db, config, auth } = ctx;
    const [settings, groups, services] = await Promise.all([
      readSettingsObject(db, auth.userId),
      listGroups(db, auth.userId),
      listServices(db, config.baseUrl, auth.userId, ctx.secretsKey),
    ]);
    const max = info(config).limits.post_text_max;
    const scope = settings.default_scopes.posts;
    const names = Object.fromEntries(services.map((s) => [s.id, s.name]));
    const body = html`<h1>Compose</h1>
      <form id="compose" data-max="${max}" data-services="${JSON.stringify(names)}">
        <label for="text">Text</label>
        <textarea id="text" name="text" required aria-describedby="counter"></textarea>
        <p id="counter" class="counter" aria-live="polite">0 / ${max}</p>

        <fieldset>
          <legend>Photos, videos, audio</legend>
          <label for="files">Attach files</label>
          <input id="files" type="file" multiple accept="image/*,video/*,audio/*" data-skip />
          <span class="help">Each file uploads at once. Its caption is the text people who cannot see it get.</span>
          <ul class="attachments" id="attachments"></ul>
        </fieldset>

        <fieldset>
          <legend>Location (optional)</legend>
          <div class="row">
            <label>Latitude <input name="lat" id="lat" inputmode="decimal" data-skip /></label>
            <label>Longitude <input name="lon" id="lon" inputmode="decimal" data-skip /></label>
            <button type="button" class="secondary" id="locate">Use my location</button>
          </div>
          <span class="help" id="locate-status" role="status"></span>
        </fieldset>

        <fieldset>
          <legend>Who can see it</legend>
          <label class="inline"
            ><input type="radio" name="scope" value="public" ${scope === 'public' ? html`checked` : ''} /> Public:
            anyone</label
          >
          <label class="inline"
            ><input type="radio" name="scope" value="private" ${scope === 'private' ? html`checked` : ''} /> Private:
            only you</label
          >
        </fieldset>

        <fieldset>
          <legend>Send to</legend>
          ${
            groups.length === 0
              ? html`<p class="help">
                  No service groups yet: the post stays here. <a href="/app/services">Add a service and a group</a>.
                </p>`
              : groups.map(
                  (g) =>
                    html`<label class="inline"
                      ><input type="checkbox" name="groups" value="${g.id}" data-type="list" /> ${g.name}
                      <small>(${g.service_ids.map((id) => names[id] ?? id).join(', ') || 'no services'})</small></label
                    >`,
                )
          }
        </fieldset>
        <button type="submit" id="post-button">Post</button>
      </form>
      <section id="result" aria-live="polite"></section>`;
    return { body };
  },
};
