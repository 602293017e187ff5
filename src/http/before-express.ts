// A handler run on each request before Express handles it at all (app.handle: the request's prototypes, the
// router's URL parse and its walk of the layers), for answers that need none of that: the catalogue fast path.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Express, NextFunction, Request, Response } from 'express';

type First = (req: Request, res: Response, next: NextFunction) => void;
type Handle = (req: IncomingMessage, res: ServerResponse, done?: (error?: unknown) => void) => void;

/**
 * Puts `first` in front of the app: a request it passes on (or throws on before answering) goes to Express
 * unchanged. With `fresh` (a process that follows projections another one runs), `/v1/` requests wait for it
 * first, as the freshCaches middleware makes them wait, so no answer older than a write already answered is sent.
 */
export function beforeExpress(app: Express, first: First, fresh?: () => Promise<void> | null): void {
  const target = app as unknown as { handle: Handle };
  const handle = target.handle.bind(app);
  target.handle = (req, res, done) => {
    const rest = () => handle(req, res, done);
    const run = () => {
      try {
        first(req as Request, res as Response, rest);
      } catch (error) {
        if (res.headersSent) res.destroy(error as Error);
        else rest();
      }
    };
    const wait = fresh && req.url?.startsWith('/v1/') ? fresh() : null;
    if (wait) wait.then(run, rest);
    else run();
  };
}
