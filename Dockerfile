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
# JavaScriptCore sizes each thread's heap growth to the machine's RAM; told it has 384 MiB, the
# three threads collect early instead of each growing to hundreds of MB (README, Operations).
ENV BUN_JSC_forceRAMSize=402653184
CMD ["bun", "run", "src/main.ts"]
