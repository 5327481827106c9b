# The single executable (npm run build) on a slim base: no Bun, no node_modules, no sources in the
# image. One volume: the SQLite file and everything the service writes live in /data.
#
#   docker build --build-arg GIT_COMMIT=$(git rev-parse --short=12 HEAD) -t fee-ledger .
#
# The Bun that builds it is the one package-lock.json pins (and every test runs):
# test/dockerfile.test.ts keeps the two equal. linux/amd64 only: two native dependencies (LiteSVM,
# the Yellowstone client) publish no linux-arm64 build of the versions used (docs/self-hosting.md).
FROM oven/bun:1.4.5 AS build
WORKDIR /src
COPY package.json package-lock.json ./
COPY packages ./packages
# Exactly the versions package-lock.json holds, or the build fails: no fallback that resolves anew.
# No install script is needed: the executable takes bigint-buffer's JavaScript path (scripts/build.ts).
RUN bun install --production --frozen-lockfile
COPY . .
ARG GIT_COMMIT=unknown
RUN GIT_COMMIT=$GIT_COMMIT bun run scripts/build.ts --outfile /out/fee-ledger

FROM debian:bookworm-slim
COPY --from=build /out/fee-ledger /usr/local/bin/fee-ledger
RUN groupadd --system app && useradd --system --gid app --home /data app \
    && mkdir -p /data && chown app:app /data
USER app
# The working folder is the data volume: the executable reads no bunfig.toml or .env from it
# (scripts/build.ts turns Bun's autoloading off; test/binary/pump-start.test.ts).
WORKDIR /data
VOLUME ["/data"]
ENV DATA_DIR=/data \
    PORT=3000
EXPOSE 3000
# The executable asks the running service itself (a slim image has no HTTP client).
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["fee-ledger", "health"]
# Read once as the process starts, so set here: JavaScriptCore's heap sizing (collect early in each
# of the three threads) and one glibc arena for the native modules. The same as `npm start`; the
# reasons are in src/workers/runtime-env.ts (docs/operations.md, Memory).
ENV BUN_JSC_forceRAMSize=402653184 \
    BUN_JSC_largeHeapSize=8388608 \
    BUN_JSC_smallHeapGrowthFactor=1.25 \
    BUN_JSC_mediumHeapGrowthFactor=1.15 \
    MALLOC_ARENA_MAX=1
CMD ["fee-ledger"]
