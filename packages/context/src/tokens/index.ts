export * from './models';
export * from './encoder';
export * from './count';
export { hashString } from './hash';
export * from './calibration';
