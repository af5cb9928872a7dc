// Prisma CLI configuration, for the standard workflow (`npx prisma migrate deploy`, `migrate dev`)
// where Prisma's schema engine can be downloaded. Offline, scripts/migrate applies the same files.
import { defineConfig, env } from 'prisma/config';

export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  datasource: { url: env('DATABASE_URL') },
});
