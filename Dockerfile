# The registry image: `docker compose up` builds it (see docker-compose.yml).
FROM node:20-slim
WORKDIR /app
COPY package.json package-lock.json ./
# Scripts off: `prepare` builds, and the sources are not copied yet.
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY . .
# onnxruntime-node ships every platform's binaries (~290 MB); the image needs Linux's only.
RUN npm run build && npm prune --omit=dev --ignore-scripts \
  && rm -rf node_modules/onnxruntime-node/bin/napi-v6/darwin node_modules/onnxruntime-node/bin/napi-v6/win32
ENV NODE_ENV=production PORT=8080
EXPOSE 8080
USER node
CMD ["node", "bin/ard-registry.js", "serve"]
