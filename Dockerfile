# One container, one volume: the SQLite file and everything the service writes live in /data.
FROM oven/bun:1.3-debian AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN bun install --production --frozen-lockfile || bun install --production

FROM oven/bun:1.3-debian
WORKDIR /app
ENV NODE_ENV=production \
    DATA_DIR=/data \
    PORT=3000
COPY --from=deps /app/node_modules ./node_modules
COPY package.json ./
COPY src ./src
COPY db ./db
COPY indexer ./indexer
COPY public ./public
RUN groupadd --system app && useradd --system --gid app --home /app app \
    && mkdir -p /data && chown app:app /data
USER app
VOLUME ["/data"]
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD bun -e "const r = await fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/api/cron/health'); process.exit(r.status === 200 ? 0 : 1)"
# Read once as the process starts, so set here: JavaScriptCore's heap sizing (collect early in each
# of the three threads) and one glibc arena for the native modules. The same as `npm start`; the
# reasons are in src/workers/runtime-env.ts (README, Operations).
ENV BUN_JSC_forceRAMSize=402653184 \
    BUN_JSC_largeHeapSize=8388608 \
    BUN_JSC_smallHeapGrowthFactor=1.25 \
    BUN_JSC_mediumHeapGrowthFactor=1.15 \
    MALLOC_ARENA_MAX=1
CMD ["bun", "run", "src/main.ts"]
