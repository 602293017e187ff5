// The VAPID public key a page subscribes to pushes with (`GET /v1/push/key`, PUSH.md operation 65).
import { defineOperation } from '../../src/http/operation.ts';
import { z } from '../../src/http/schemas.ts';

export const pushKey = defineOperation({
  route: { number: 65, operationId: 'getPushKey', group: 'Notifications', method: 'get', path: '/v1/push/key', auth: 'anon' },
  docs: {
    summary: "The service's VAPID public key, to subscribe a browser to pushes",
    description:
      'What a page passes to `pushManager.subscribe({ userVisibleOnly: true, applicationServerKey })` (RFC 8292): an uncompressed P-256 point, ' +
      'base64url. The same for every house and every process of the deployment; a subscription made with another key is refused by the push service.',
    examples: { response: { PublicKey: 'BEl62iUYgUivxIkv69yViEuiBIa-Ib9-SkvMeAtA3LFgDzkrxZJjSgSnfckjBJuBkr3qBUYIHBQFLXYp5Nksh8U' } },
  },
  output: {
    response: z
      .object({
        PublicKey: z
          .string()
          .length(87)
          .regex(/^[A-Za-z0-9_-]{87}$/)
          .openapi({ description: 'The uncompressed P-256 point (65 bytes), base64url without padding.' }),
      })
      .openapi('PushKey'),
  },
  async handler(_input, ctx) {
    return { PublicKey: ctx.push.publicKey };
  },
});

export const pushQueryOperations = [pushKey];
