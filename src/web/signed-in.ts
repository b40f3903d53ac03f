// What a signed-in page route outside the registry (the Trackers page's form answers,
// src/web/trackers/trackers.routes.ts) answers with: who is signed in, and the web app's layout
// around the content (the same bar as the pages of src/web/registry.ts).
import type { FastifyRequest } from 'fastify';
import type { Html } from '../lib/html.ts';
import { sessionUserId } from '../account/sessions.http.ts';
import type { Db } from '../db/database.ts';
import { findUserById } from '../users/users.repo.ts';
import { layout } from './layout.ts';
import type { Viewer } from './page.ts';

/** The signed-in person, or undefined. */
export async function viewerOf(db: Db, baseUrl: string, request: FastifyRequest): Promise<Viewer | undefined> {
  const id = await sessionUserId(db, baseUrl, request);
  const row = id ? await findUserById(db, id) : undefined;
  return row ? { id: row.id, username: row.username, displayName: row.display_name } : undefined;
}

/** A signed-in page outside the registry's GET routes (the answer to a form), in the layout. */
export function appPage(options: {
  title: string;
  body: Html;
  viewer: Viewer;
  csrf: string;
  current: string;
  pages: ReadonlySet<string>;
  /** Asset names of the page's own ES modules. */
  scripts?: readonly string[];
}): string {
  return layout({ ...options, styles: ['public.css'] });
}
