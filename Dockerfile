# The arena image: `arena worker`, `arena league run`, the example bots. Build from the repository root:
#   docker build -t arena:latest .
FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1
WORKDIR /opt/arena
COPY pyproject.toml README.md ./
COPY arena ./arena
COPY bots/python ./bots/python
RUN pip install . ./bots/python \
    && useradd --system --uid 10001 --home-dir /data arena \
    && mkdir -p /data && chown arena /data
USER 10001
WORKDIR /data
# 50051: bots (gRPC), 9100: /metrics
EXPOSE 50051 9100
ENTRYPOINT ["arena"]
CMD ["--help"]
