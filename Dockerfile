# One image for every role of the service (ROLE=api|projector|worker|all); see docker-compose.yml.
FROM node:20-bookworm-slim
# better-sqlite3 (the embedded default, also used for tools) compiles from source when no prebuilt fits.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ curl && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund
COPY tsconfig.json ./
COPY src ./src
COPY app ./app
COPY commands ./commands
COPY projections ./projections
COPY queries ./queries
# The reference bidder front end served at /demo/ (bundled at its first request) and the client it is built on.
COPY clients/typescript ./clients/typescript
COPY examples/bidder-web ./examples/bidder-web
ENV NODE_ENV=production PORT=3000 DATA_DIR=/data
RUN mkdir -p /data && chown node:node /data
USER node
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s --retries=3 CMD curl -fsS http://127.0.0.1:3000/healthz || exit 1
CMD ["node", "--max-old-space-size=1024", "--import", "tsx", "app/main.ts"]
