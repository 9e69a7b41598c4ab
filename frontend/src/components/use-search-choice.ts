import { useSearchParams } from 'react-router-dom';

/**
 * A choice a screen keeps in its address (`?name=value`, replaced, not pushed): the coin or network
 * picked is still picked when the user comes back to the screen (from "Add address", the records,
 * a report), where the screen's own state would have started over. Answers the value ('' when
 * none) and its setter.
 */
export function useSearchChoice(name: string): [string, (value: string) => void] {
  const [params, setParams] = useSearchParams();
  const set = (value: string) =>
    setParams(
      (p) => {
        const next = new URLSearchParams(p);
        next.set(name, value);
        return next;
      },
      { replace: true },
    );
  return [params.get(name) ?? '', set];
}
