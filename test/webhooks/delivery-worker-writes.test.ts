// The delivery worker's writes (cursors and deliveries log): those asked for in one turn of the event loop are one commit.
import { expect } from 'chai';
import { WebhookDeliveryWorker } from '../../commands/webhooks/index.ts';
import type { WebhookCursorDoc } from '../../commands/webhooks/index.ts';
import type { DocumentStore, WriteOp } from '../../src/ports/read-models.ts';

const cursor = (webhookId: number, after: number): WebhookCursorDoc => ({
  _id: String(webhookId),
  WebhookId: webhookId,
  After: after,
  ReplaySeq: 0,
  Attempt: 0,
  NextAttemptAt: null,
  PendingEventId: null,
  PendingType: null,
  PendingPosition: null,
  LastDeliveredPosition: after,
  Lines: 1,
});

describe('the webhook delivery worker’s writes', () => {
  it('commits the writes asked for together as one, moving its fence one step, and fails each of a failed commit', async () => {
    const commits: Array<{ ops: WriteOp[]; checkpoint: { projection: string; expected: number; position: number } }> = [];
    let fail = false;
    const documents = {
      live: () => ({
        commit: async (ops: WriteOp[], checkpoint: { projection: string; expected: number; position: number }) => {
          if (fail) throw new Error('the store is briefly unavailable');
          commits.push({ ops, checkpoint });
        },
      }),
    } as unknown as DocumentStore;
    const worker = new WebhookDeliveryWorker({ documents } as ConstructorParameters<typeof WebhookDeliveryWorker>[0]);
    const ids = (ops: WriteOp[]) => ops.map((op) => (op.op === 'put' ? `${op.tenant}/${op.doc._id}` : `-${op.id}`));

    await Promise.all([worker.write('a', cursor(1, 10), []), worker.write('a', cursor(2, 11), []), worker.write('b', cursor(3, 12), [])]);
    expect(commits.map((c) => [ids(c.ops), c.checkpoint])).to.deep.equal([
      [['a/1', 'a/2', 'b/3'], { projection: 'webhook-dispatcher', expected: 0, position: 1 }],
    ]);

    await worker.write('a', cursor(1, 13), []);
    expect(commits.map((c) => c.checkpoint.position)).to.deep.equal([1, 2]);

    fail = true;
    const failed = await Promise.allSettled([worker.write('a', cursor(1, 14), []), worker.write('b', cursor(3, 15), [])]);
    expect(failed.map((r) => r.status)).to.deep.equal(['rejected', 'rejected']);
    fail = false;
    await worker.write('a', cursor(1, 14), []);
    expect(commits.at(-1)!.checkpoint).to.deep.equal({ projection: 'webhook-dispatcher', expected: 2, position: 3 });
  });
});
