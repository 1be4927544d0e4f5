-- Which kernels a worker trains on (ENGINES in @starpo/contracts): `tfjs` on a CPU backend is the slow
-- engine, shown on the Workers page and the run page. Workers registered before this say `unknown`.

-- AlterTable
ALTER TABLE "workers" ADD COLUMN     "engine" TEXT NOT NULL DEFAULT 'unknown';
