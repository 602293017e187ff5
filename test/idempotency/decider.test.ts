/**
 * The Idempotency-Key decider: a key is claimed before its request runs, answered after it, or released when
 * the request was refused; a repeat within 24 hours gets the first answer, and runs nothing.
 */
import { expect } from 'chai';
import {
  ABANDONED_AFTER_MS,
  IDEMPOTENCY_WINDOW_MS,
  RepeatedRequest,
  requestKeyDecider,
  type RequestKeyCommand,
} from '../../src/idempotency/decide.ts';
import type { IdempotencyEvent } from '../../src/idempotency/events.ts';
import { AppError, ConflictError } from '../../src/errors.ts';
import { spec } from '../support/decider.ts';

const at = '2026-11-22T10:00:00.000Z';
/** A time so many milliseconds after `at`. */
const after = (ms: number) => new Date(Date.parse(at) + ms).toISOString();
const key = { tenant: 'demo', scope: 'intake', keyHash: 'k'.repeat(32) };
const BODY = 'b'.repeat(64);
const OTHER_BODY = 'c'.repeat(64);
const answer = { Accepted: 3, Rejected: 0 };

const claim = (when = at, bodyHash = BODY): Extract<RequestKeyCommand, { type: 'Claim' }> => ({
  type: 'Claim',
  ...key,
  bodyHash,
  at: when,
});
const answerCommand = (when = at, bodyHash = BODY, given: Record<string, unknown> = answer): RequestKeyCommand => ({
  type: 'Answer',
  ...key,
  bodyHash,
  answer: given,
  at: when,
});
const release = (when = at): RequestKeyCommand => ({ type: 'Release', ...key, at: when });

const claimed = (when = at, bodyHash = BODY): IdempotencyEvent => ({ type: 'RequestKeyClaimed', data: { ...key, bodyHash, at: when } });
const answered = (when = at, bodyHash = BODY, given: Record<string, unknown> = answer): IdempotencyEvent => ({
  type: 'RequestKeyAnswered',
  data: { ...key, bodyHash, answer: given, at: when },
});
const released = (when = at): IdempotencyEvent => ({ type: 'RequestKeyReleased', data: { ...key, at: when } });

/** What deciding the command on the stream of `events` throws (the spec helper checks its type and message only). */
function thrownBy(events: IdempotencyEvent[], command: RequestKeyCommand): unknown {
  const state = events.reduce(requestKeyDecider.evolve, requestKeyDecider.initialState());
  try {
    requestKeyDecider.decide(command, state);
  } catch (error) {
    return error;
  }
  throw new Error('the command threw nothing');
}

describe('Idempotency-Key decider', () => {
  describe('Claim', () => {
    it('claims a key that was never used', () => {
      spec(requestKeyDecider).given([]).when(claim()).then([claimed()]);
    });

    it('refuses a repeat while the first request still runs (409), whatever its body', () => {
      spec(requestKeyDecider)
        .given([claimed()])
        .when(claim(after(1000)))
        .thenThrows(ConflictError, /still running; ask again when it has answered/);
      spec(requestKeyDecider)
        .given([claimed()])
        .when(claim(after(ABANDONED_AFTER_MS - 1), OTHER_BODY))
        .thenThrows(ConflictError, /still running/);
    });

    it('tells the repeat when the key frees itself (Retry-After), and frees it sooner for work bounded shorter (a bid: 30 s)', () => {
      const refused = (when: string, abandonedAfterMs?: number) => {
        try {
          requestKeyDecider.decide(
            { ...claim(when), abandonedAfterMs },
            requestKeyDecider.evolve(requestKeyDecider.initialState(), claimed()),
          );
        } catch (error) {
          return (error as ConflictError).extra.retryAfterSeconds;
        }
        return 'claimed';
      };
      expect(refused(after(1000))).to.equal(ABANDONED_AFTER_MS / 1000 - 1);
      expect(refused(after(1000), 30_000)).to.equal(29);
      expect(refused(after(29_500), 30_000)).to.equal(1);
      expect(refused(after(30_000), 30_000)).to.equal('claimed');
      spec(requestKeyDecider)
        .given([claimed()])
        .when({ ...claim(after(30_000)), abandonedAfterMs: 30_000 })
        .then([claimed(after(30_000))]);
    });

    it('claims the key again once a request that never answered is 10 minutes old (its process died)', () => {
      expect(ABANDONED_AFTER_MS).to.equal(10 * 60_000);
      spec(requestKeyDecider)
        .given([claimed()])
        .when(claim(after(ABANDONED_AFTER_MS)))
        .then([claimed(after(ABANDONED_AFTER_MS))]);
      spec(requestKeyDecider)
        .given([claimed()])
        .when(claim(after(ABANDONED_AFTER_MS), OTHER_BODY))
        .then([claimed(after(ABANDONED_AFTER_MS), OTHER_BODY)]);
    });

    it('gives a repeat with the same body the first answer, and appends nothing', () => {
      spec(requestKeyDecider)
        .given([claimed(), answered(after(500))])
        .when(claim(after(60_000)))
        .thenThrows(RepeatedRequest, /repeated request/);
      expect(thrownBy([claimed(), answered(after(500))], claim(after(60_000))))
        .to.be.instanceOf(RepeatedRequest)
        .with.property('answer')
        .that.deep.equals(answer);
    });

    it('refuses a repeat with another body within 24 hours of the answer (422)', () => {
      spec(requestKeyDecider)
        .given([claimed(), answered()])
        .when(claim(after(60_000), OTHER_BODY))
        .thenThrows(AppError, /used with another body in the last 24 hours/);
      expect(thrownBy([claimed(), answered()], claim(after(60_000), OTHER_BODY)))
        .to.be.instanceOf(AppError)
        .with.property('status', 422);
    });

    it('gives the answer again until 24 hours after it was answered, then claims the key afresh', () => {
      expect(IDEMPOTENCY_WINDOW_MS).to.equal(24 * 3600_000);
      spec(requestKeyDecider)
        .given([claimed(), answered(after(500))])
        .when(claim(after(500 + IDEMPOTENCY_WINDOW_MS - 1)))
        .thenThrows(RepeatedRequest);
      spec(requestKeyDecider)
        .given([claimed(), answered(after(500))])
        .when(claim(after(500 + IDEMPOTENCY_WINDOW_MS)))
        .then([claimed(after(500 + IDEMPOTENCY_WINDOW_MS))]);
      spec(requestKeyDecider)
        .given([claimed(), answered(after(500))])
        .when(claim(after(500 + IDEMPOTENCY_WINDOW_MS), OTHER_BODY))
        .then([claimed(after(500 + IDEMPOTENCY_WINDOW_MS), OTHER_BODY)]);
    });

    it('claims a released key again at once, with any body', () => {
      spec(requestKeyDecider)
        .given([claimed(), released(after(500))])
        .when(claim(after(1000), OTHER_BODY))
        .then([claimed(after(1000), OTHER_BODY)]);
    });

    it('counts 24 hours from the latest answer when a key was claimed and answered again', () => {
      const second = after(IDEMPOTENCY_WINDOW_MS + 1000);
      const given = [claimed(), answered(), claimed(second, OTHER_BODY), answered(second, OTHER_BODY, { Accepted: 1, Rejected: 2 })];
      expect(thrownBy(given, claim(after(IDEMPOTENCY_WINDOW_MS + 60_000), OTHER_BODY)))
        .to.be.instanceOf(RepeatedRequest)
        .with.property('answer')
        .that.deep.equals({ Accepted: 1, Rejected: 2 });
      spec(requestKeyDecider)
        .given(given)
        .when(claim(after(IDEMPOTENCY_WINDOW_MS + 60_000)))
        .thenThrows(AppError, /another body/);
    });
  });

  describe('Answer', () => {
    it("records a claimed key's answer", () => {
      spec(requestKeyDecider)
        .given([claimed()])
        .when(answerCommand(after(500)))
        .then([answered(after(500))]);
    });

    it('records an answer whatever the stream holds: no claim, a released claim, or an answer already', () => {
      spec(requestKeyDecider).given([]).when(answerCommand()).then([answered()]);
      spec(requestKeyDecider)
        .given([claimed(), released()])
        .when(answerCommand(after(500)))
        .then([answered(after(500))]);
      spec(requestKeyDecider)
        .given([claimed(), answered()])
        .when(answerCommand(after(500), OTHER_BODY, { Accepted: 0, Rejected: 3 }))
        .then([answered(after(500), OTHER_BODY, { Accepted: 0, Rejected: 3 })]);
    });
  });

  describe('Release', () => {
    it('frees a key whose request was refused before it answered', () => {
      spec(requestKeyDecider)
        .given([claimed()])
        .when(release(after(500)))
        .then([released(after(500))]);
    });

    it('appends nothing for a key never claimed, released already, or answered', () => {
      spec(requestKeyDecider).given([]).when(release()).thenNothingHappened();
      spec(requestKeyDecider)
        .given([claimed(), released()])
        .when(release(after(500)))
        .thenNothingHappened();
      spec(requestKeyDecider)
        .given([claimed(), answered()])
        .when(release(after(500)))
        .thenNothingHappened();
    });

    it('frees the key whichever request holds it: a late release of an abandoned request frees the claim that took over', () => {
      const takenOver = after(ABANDONED_AFTER_MS);
      spec(requestKeyDecider)
        .given([claimed(), claimed(takenOver, OTHER_BODY)])
        .when(release(after(ABANDONED_AFTER_MS + 1000)))
        .then([released(after(ABANDONED_AFTER_MS + 1000))]);
    });

    it('frees a key claimed again after its answer was 24 hours old', () => {
      const again = after(IDEMPOTENCY_WINDOW_MS);
      spec(requestKeyDecider)
        .given([claimed(), answered(), claimed(again)])
        .when(release(again))
        .then([released(again)]);
    });
  });
});
