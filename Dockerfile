# Deskflow's API and worker: one image, the command picks the role
# (node src/server.ts api | worker). Node 24 runs the TypeScript sources as they are.
FROM node:24-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-fund --no-audit && npm cache clean --force
COPY src ./src
COPY temporal ./temporal
COPY migrations ./migrations
USER node
EXPOSE 3000
CMD ["node", "--max-semi-space-size=2", "src/server.ts", "api"]
