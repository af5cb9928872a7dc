-- AlterTable
ALTER TABLE "capabilities" ADD COLUMN "snapshot" TEXT;
