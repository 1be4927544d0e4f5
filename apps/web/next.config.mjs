/** @type {import('next').NextConfig} */
const nextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  transpilePackages: ['@starpo/envs', '@starpo/contracts'],
};
export default nextConfig;
