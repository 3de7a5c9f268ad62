import { finishFigures, startFigures } from './figures.ts';

/** The figures table covers the scenarios of this run only, and is printed once at its end. */
export default function setup(): () => void {
  startFigures();
  return finishFigures;
}
