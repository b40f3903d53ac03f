// What the several-node test's clients need, made through the balancer as an app would: an
// account (written to the database, as `waypost user add` does), an OAuth app, tokens from the
// authorization code flow (sign-in and consent pages, each step on whichever node the balancer
// picks), a webhook service in a group, and a tracker. Also the video files the uploads send.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as oauth from 'oauth4webapi';
import { openDatabase } from '../../src/db/database.ts';
import { saveClient } from '../../src/oauth/oauth.repo.ts';
import { createUser } from '../../src/users/users.logic.ts';
import { authorizationRequest, Browser, runFlow } from '../../test/browser.ts';

export const USERNAME = 'walker';
const PASSWORD = 'a long walk along the river';
export const CLIENT_ID = 'nodes-test-app';
const REDIRECT = 'http://127.0.0.1:1/callback';
const SCOPE = [
  'get_private_scope',
  'create_post',
  'upload_media',
  'write_locations',
  'create_service',
  'manage_groups',
  'get_services',
  'export',
].join(' ');
export const insecure = { [oauth.allowInsecureRequests]: true } as const;

export interface Session {
  as: oauth.AuthorizationServer;
  client: oauth.Client;
  accessToken: string;
  refreshToken: string;
}

export async function createAccount(databaseUrl: string): Promise<void> {
  const database = openDatabase({ url: databaseUrl, poolSize: 1 });
  try {
    await createUser(database.db, { username: USERNAME, password: PASSWORD });
    await saveClient(database.db, CLIENT_ID, {
      client_id: CLIENT_ID,
      client_name: 'Several-node test',
      redirect_uris: [REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      token_endpoint_auth_method: 'none',
    });
  } finally {
    await database.close();
  }
}

/** Signs in and consents through the pages, then trades the code for tokens (access and refresh). */
export async function signIn(baseUrl: string): Promise<Session> {
  const issuer = new URL(baseUrl);
  const as = await oauth.processDiscoveryResponse(
    issuer,
    await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }),
  );
  const client: oauth.Client = { client_id: CLIENT_ID, token_endpoint_auth_method: 'none' };
  const { url, verifier, state } = await authorizationRequest(as, {
    clientId: CLIENT_ID,
    redirectUri: REDIRECT,
    scope: SCOPE,
  });
  const flow = await runFlow(new Browser(), url, { redirectUri: REDIRECT, username: USERNAME, password: PASSWORD });
  if (!flow.callback) throw new Error(`the sign-in flow stopped: ${JSON.stringify(flow.stopped)}`);
  const params = oauth.validateAuthResponse(as, client, flow.callback, state);
  const response = await oauth.authorizationCodeGrantRequest(
    as,
    client,
    oauth.None(),
    params,
    REDIRECT,
    verifier,
    insecure,
  );
  const tokens = await oauth.processAuthorizationCodeResponse(as, client, response);
  return { as, client, accessToken: tokens.access_token, refreshToken: tokens.refresh_token! };
}

async function call<T>(baseUrl: string, token: string, method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return (response.status === 204 ? undefined : await response.json()) as T;
}

export interface Services {
  groupId: string;
  webhookId: string;
  ingestUrl: string;
  ingestToken: string;
}

/** A webhook to `hookUrl` in a group (where the posts go), and an Overland tracker. */
export async function createServices(
  baseUrl: string,
  token: string,
  hookUrl: string,
  secret: string,
): Promise<Services> {
  const webhook = await call<{ id: string }>(baseUrl, token, 'POST', '/services', {
    type: 'webhook',
    name: 'Loopback webhook',
    config: { url: hookUrl, secret },
  });
  const group = await call<{ id: string }>(baseUrl, token, 'POST', '/services/groups', { name: 'Everywhere' });
  await call(baseUrl, token, 'POST', `/services/groups/${group.id}/${webhook.id}`);
  const tracker = await call<{ ingest: { url: string; token: string } }>(baseUrl, token, 'POST', '/services', {
    type: 'overland',
    name: 'Phone',
    config: {},
  });
  return { groupId: group.id, webhookId: webhook.id, ingestUrl: tracker.ingest.url, ingestToken: tracker.ingest.token };
}

/** A few one-second videos (different colours, so different files), made once with ffmpeg. */
export function makeVideos(dir: string, count: number): Buffer[] {
  const videos: Buffer[] = [];
  for (let i = 0; i < count; i += 1) {
    const path = join(dir, `video-${i}.mp4`);
    const colour = ['red', 'green', 'blue', 'yellow', 'purple', 'orange'][i % 6]!;
    const made = spawnSync('ffmpeg', [
      ...['-loglevel', 'error', '-y', '-f', 'lavfi', '-i', `color=c=${colour}:s=64x48:d=1:r=10`],
      ...['-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-movflags', '+faststart', path],
    ]);
    if (made.status !== 0) throw new Error(`ffmpeg could not make a video: ${made.stderr.toString()}`);
    videos.push(readFileSync(path));
  }
  return videos;
}
