# Deskflow's API and worker: one image, the command picks the role
# (node src/server.ts api | worker). Node 24 runs the TypeScript sources as they are.

# The console (GET /console) is built with its dev dependencies in a stage of its own; the
# image keeps only the built files.
FROM node:24-bookworm-slim AS console
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-fund --no-audit
COPY src/graph ./src/graph
COPY console ./console
RUN node console/build.ts

FROM node:24-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
# No install scripts: npm's prepare builds from sources not copied yet, and with the console's
# dev dependencies; the workflow bundle is built below, once the sources are here.
RUN npm ci --omit=dev --ignore-scripts --no-fund --no-audit && npm cache clean --force
COPY src ./src
COPY temporal ./temporal
COPY migrations ./migrations
# The workflow bundle, built once into node_modules/.cache/deskflow: workers start without
# bundling (and could not write it there as the node user).
RUN node temporal/build-bundle.ts
COPY --from=console /app/console/dist ./console/dist
USER node
EXPOSE 3000
CMD ["node", "--max-semi-space-size=8", "--heap-growing-percent=100", "src/server.ts", "api"]
