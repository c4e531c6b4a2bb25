# Redis for the whole-system test: no Redis image can be pulled where the
# stand-in base is used, so Debian's redis-server on the services' own base.
# Started with infra/redis.conf mounted, as docker-compose.yml starts redis.
ARG BASE=docker.io/library/node:22.23.3-bookworm-slim
FROM ${BASE}
RUN apt-get update \
 && apt-get install -y --no-install-recommends redis-server redis-tools \
 && rm -rf /var/lib/apt/lists/* \
 && mkdir -p /data && chown node:node /data
USER node
CMD ["redis-server"]
