// The Delete button every page uses. src/web/assets/app.js does the rest: it asks `confirm`,
// sends DELETE to `path`, then removes the element marked `data-item` around the button, or goes
// to `then`. A failure is shown to the person; the button comes back.
import { html, type Html } from '../lib/html.ts';

export interface DeleteButton {
  /** The API path the DELETE goes to. */
  path: string;
  /** The question asked first. */
  confirm: string;
  /** What the button says (default "Delete"). */
  text?: string;
  /** Said to screen readers after `text`, so each button's name tells what it deletes. */
  what?: string;
  /** Where to go once it is gone (a page about the deleted object); else its item goes. */
  then?: string;
  /** A full-size button (default small, inside a card). */
  large?: boolean;
}

export function deleteButton(button: DeleteButton): Html {
  return html`<button
    type="button"
    class="danger${button.large ? '' : ' small'}"
    data-delete="${button.path}"
    data-confirm="${button.confirm}"
    ${button.then ? html`data-then="${button.then}"` : ''}
  >
    ${button.text ?? 'Delete'}${button.what ? html`<span class="visually-hidden"> ${button.what}</span>` : ''}
  </button>`;
}
