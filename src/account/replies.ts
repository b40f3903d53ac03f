// How every server-rendered page is answered: HTML, never cached (pages carry CSRF tokens and
// per-person content), and the 303 a form POST ends with.
import type { FastifyReply } from 'fastify';

export function sendHtml(reply: FastifyReply, status: number, body: string) {
  return reply.code(status).type('text/html; charset=utf-8').header('cache-control', 'no-store').send(body);
}

export function seeOther(reply: FastifyReply, to: string) {
  return reply.code(303).header('cache-control', 'no-store').redirect(to);
}
