# One image for every role of the service (ROLE=api|projector|worker|all); see docker-compose.yml. Two stages, as
# the Node.js image's guidance has it (nodejs/docker-node docs/BestPractices.md, multistage build): the build stage
# has the compilers and every dependency; the runtime stage only node, the production dependencies (better-sqlite3's
# native module as the build stage compiled it) and the compiled JavaScript: no compiler, TypeScript or curl.

FROM node:20-bookworm-slim AS build
# better-sqlite3 (the embedded default, also used for tools) compiles from source when no prebuilt binary fits.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY app ./app
COPY commands ./commands
COPY projections ./projections
COPY queries ./queries
# The reference bidder front end served at /demo/ and the client it is built on: bundled here, once.
COPY clients/typescript ./clients/typescript
COPY examples/bidder-web ./examples/bidder-web
# dist/ (type-checked, then compiled: app/cli/build.ts), then the development dependencies removed.
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

FROM node:20-bookworm-slim
ENV NODE_ENV=production PORT=3000 DATA_DIR=/data
WORKDIR /app
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
RUN mkdir -p /data && chown node:node /data
USER node
EXPOSE 3000
# node's fetch: the image has no curl.
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/healthz', { signal: AbortSignal.timeout(2500) }).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# The tools likewise: `node dist/app/cli/keys.js rotate` (README "The image").
CMD ["node", "--max-old-space-size=1024", "dist/app/main.js"]
