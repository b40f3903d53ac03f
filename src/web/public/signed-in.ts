// What the signed-in pages of this folder (Map, Trackers) share: who is signed in, and the page
// around their content.
import type { FastifyRequest } from 'fastify';
import { sessionUserId } from '../../account/sessions.logic.ts';
import { html, type Html } from '../../account/html.ts';
import type { Db } from '../../db/database.ts';
import { findUserById } from '../../users/users.repo.ts';
import { publicPage } from './profile.html.ts';

export interface Viewer {
  id: string;
  username: string;
  displayName: string;
}

/** The signed-in person, or undefined. */
export async function viewerOf(db: Db, request: FastifyRequest): Promise<Viewer | undefined> {
  const id = await sessionUserId(db, request);
  const row = id ? await findUserById(db, id) : undefined;
  return row ? { id: row.id, username: row.username, displayName: row.display_name } : undefined;
}

/** A signed-in page: the content, with the page's own extra head elements. */
export function appPage(title: string, body: Html, head: Html = html``): string {
  return publicPage({ title, head, body });
}
