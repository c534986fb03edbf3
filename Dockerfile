# The registry image: `docker compose up` builds it (see docker-compose.yml).
FROM node:20-slim
WORKDIR /app
COPY package.json package-lock.json ./
# Scripts off: `prepare` builds, and the sources are not copied yet.
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY . .
RUN npm run build && npm prune --omit=dev --ignore-scripts
ENV NODE_ENV=production PORT=8080
EXPOSE 8080
USER node
CMD ["node", "bin/ard-registry.js", "serve"]
