// The loopback webhook the several-node test's posts are delivered to: it checks each
// signature (Standard Webhooks, with the service's secret), records every arrival by
// `webhook-id` and post, and answers 200 after a short pause, so a worker killed mid-send
// leaves a delivery whose retry arrives a second time with the same `webhook-id`.
import { createServer, type Server } from 'node:http';
import { Webhook } from 'standardwebhooks';

export interface Arrival {
  webhookId: string;
  postId: string;
  at: number;
}

export class WebhookReceiver {
  readonly arrivals: Arrival[] = [];
  readonly refused: string[] = [];
  private server: Server | undefined;
  private secret = '';
  port = 0;

  /** The signing secret, once the service is made. */
  setSecret(secret: string): void {
    this.secret = secret;
  }

  async start(pauseMs: number): Promise<void> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const headers = {
          'webhook-id': String(request.headers['webhook-id'] ?? ''),
          'webhook-timestamp': String(request.headers['webhook-timestamp'] ?? ''),
          'webhook-signature': String(request.headers['webhook-signature'] ?? ''),
        };
        try {
          const event = new Webhook(this.secret).verify(body, headers) as { type: string; data: { id: string } };
          if (event.type === 'post.created') {
            this.arrivals.push({ webhookId: headers['webhook-id'], postId: event.data.id, at: Date.now() });
          }
        } catch (error) {
          this.refused.push(`${headers['webhook-id']}: ${(error as Error).message}`);
          response.writeHead(400).end();
          return;
        }
        setTimeout(() => response.writeHead(200).end(), pauseMs);
      });
    });
    await new Promise<void>((done) => this.server!.listen(0, '127.0.0.1', done));
    this.port = (this.server.address() as { port: number }).port;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/hook`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((done) => this.server?.close(done));
  }
}
