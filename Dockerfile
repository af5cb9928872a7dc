# syntax=docker/dockerfile:1
# One image for the services and the one-shot scripts; docker-compose.yml and deploy/kubernetes
# pick the command:
#   node dist/apps/authorizer/src/main.js       node dist/scripts/migrate.js
#   node dist/apps/dispatcher/src/main.js       node dist/scripts/create-topics.js
#   node dist/apps/relay/src/main.js            node dist/scripts/apply-kafka-acls.js
#   node dist/apps/mcp/src/main.js
#   node dist/scripts/demo-producer.js
# Build: docker build -t registry.example.com/arvis:$(node -p "require('./package.json').version") .
# (the tag is the release version, ADR 0065; never :latest). Adding a team's tool packages:
# deploy/kubernetes/README.md.
# The same Node as scripts/lib.sh's NODE_VERSION (CI and the local scripts), by exact tag (ADR 0040).
# A tag can be re-pushed; pin the digest too (node:24.22.3-bookworm-slim@sha256:...) where a
# registry can be reached to look it up (not from the project's build machines).
ARG NODE_IMAGE=node:24.22.3-bookworm-slim

# ---- build: all dependencies, prisma generate, tsc --------------------------------------------
FROM ${NODE_IMAGE} AS build
WORKDIR /app
# Prisma 7 wants a schema-engine binary that neither generation nor this project's migrations
# (scripts/migrate applies the SQL files itself) ever run. Pointing it at a placeholder stops both
# the @prisma/engines postinstall and `prisma generate` from downloading it (binaries.prisma.sh).
ENV PRISMA_SCHEMA_ENGINE_BINARY=/bin/false
COPY package.json package-lock.json ./
# The postinstall applies patches/ (patch-package): kafkajs's idle timer loop (ADR 0045).
COPY patches ./patches
RUN --mount=type=cache,target=/root/.npm npm ci --no-audit --no-fund --loglevel=error
COPY tsconfig.json tsconfig.build.json prisma.config.ts ./
COPY prisma ./prisma
COPY scripts ./scripts
COPY libs ./libs
COPY apps ./apps
COPY tools ./tools
RUN npm run build

# ---- prod-deps: runtime dependencies only ---------------------------------------------------------
FROM ${NODE_IMAGE} AS prod-deps
WORKDIR /app
COPY package.json package-lock.json ./
# --omit=optional as well as dev: `prisma` and `typescript` are optional peers of @prisma/client, so
# npm marks them devOptional and --omit=dev alone keeps them (~250 MB). The only other optional
# package is pg-cloudflare (Cloudflare Workers only). --ignore-scripts: the one install script
# left (@nestjs/core) only prints a funding banner. The built code needs nothing else: the
# generated Prisma client is compiled into dist/ and migrate.js uses `pg`.
RUN --mount=type=cache,target=/root/.npm \
    npm ci --omit=dev --omit=optional --ignore-scripts --no-audit --no-fund --loglevel=error
# --ignore-scripts also skips the postinstall that applies patches/ (kafkajs's idle timer loop, ADR
# 0045): the build stage's patch-package (the same lock file) applies them here, and fails the
# build if one does not apply. (patch-package is a dependency, so a plain `npm ci --omit=dev`
# outside the image applies them through the postinstall.)
COPY patches ./patches
RUN --mount=type=bind,from=build,source=/app/node_modules,target=/opt/build/node_modules \
    node /opt/build/node_modules/patch-package/index.js --error-on-fail

# ---- runtime -----------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production
# Semi-spaces of at most 8 MB: peak RSS under 250 MB per app through a 20,000-decision burst
# (about 370 without), CPU per decision within the noise of the default (ADR 0051).
ENV NODE_OPTIONS="--max-semi-space-size=8"
WORKDIR /app
# Files stay root-owned (read-only to the service); the process runs as the image's `node` user.
COPY --from=prod-deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# migrate.js reads ../../prisma/migrations relative to dist/scripts.
COPY prisma/migrations ./prisma/migrations
COPY package.json ./
USER node
# 3001: the authorizer's approver API and console; 3101, 3002, 3003: management (health, metrics)
# of the authorizer, the dispatcher and the relay.
EXPOSE 3001 3101 3002 3003 3004 3104
CMD ["sh", "-c", "echo 'usage: docker run IMAGE node dist/apps/authorizer/src/main.js | node dist/apps/dispatcher/src/main.js | node dist/apps/relay/src/main.js | node dist/apps/mcp/src/main.js | node dist/scripts/migrate.js | node dist/scripts/create-topics.js | node dist/scripts/apply-kafka-acls.js | node dist/scripts/demo-producer.js' >&2; exit 2"]
