# partchat's server image: the frontend built with Node, then the Python package.
# Used by compose.yaml; see docs/operations.md ("Several machines").
FROM node:20-bookworm-slim AS frontend
WORKDIR /src
COPY package.json package-lock.json ./
COPY frontend/package.json frontend/
RUN npm ci --no-audit --no-fund
COPY frontend frontend
COPY backend/partchat/schemas backend/partchat/schemas
RUN npm run build

FROM python:3.11-slim-bookworm
WORKDIR /src
COPY . .
COPY --from=frontend /src/backend/partchat/static backend/partchat/static
RUN pip install --no-cache-dir -c constraints.txt . && rm -rf /src
WORKDIR /var/lib/partchat
ENV PARTCHAT_DATA_DIR=/var/lib/partchat PARTCHAT_HOST=0.0.0.0 PARTCHAT_PORT=8000
EXPOSE 8000
CMD ["partchat", "serve"]
