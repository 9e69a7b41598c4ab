import { create } from 'zustand';

export interface PickedLocation {
  lat: string;
  lng: string;
  address: string;
}

interface LocationState {
  /** The location chosen on `/choose-location`, for the form that asked (taken once). */
  picked: PickedLocation | null;
  /**
   * The asking form's fields while the picker is open (the form screen unmounts meanwhile), tagged
   * with that form (its route): only that form gets them back, as they may hold its upload ids.
   */
  draft: { form: string; fields: Record<string, string> } | null;
  /** Coordinates of the address the form now holds, for "view on map". */
  current: PickedLocation | null;
  pick: (p: PickedLocation) => void;
  saveDraft: (form: string, fields: Record<string, string>) => void;
  /** The picked place and `form`'s own draft (another form's is dropped), both taken once. */
  take: (form: string) => { picked: PickedLocation | null; draft: Record<string, string> | null };
}

export const useLocationStore = create<LocationState>()((set, get) => ({
  picked: null,
  draft: null,
  current: null,
  pick: (p) => set({ picked: p, current: p }),
  saveDraft: (form, fields) => set({ draft: { form, fields } }),
  take: (form) => {
    const { picked, draft } = get();
    set({ picked: null, draft: null });
    return { picked, draft: draftOf(draft, form) };
  },
}));

/** The saved fields if they are `form`'s, else nothing. */
export const draftOf = (draft: LocationState['draft'], form: string) => (draft?.form === form ? draft.fields : null);

const COORD = /^-?\d{1,3}(\.\d{1,7})?$/;

/** Latitude −90…90 and longitude −180…180, at most 7 decimals (about 1 cm); undefined when fine. */
export function coordinateError(value: string, max: number): 'required' | 'invalid' | undefined {
  const v = value.trim();
  if (!v) return 'required';
  if (!COORD.test(v) || Math.abs(Number(v)) > max) return 'invalid';
  return undefined;
}

/** The same place on openstreetmap.org (opened by the user's browser; no geocoding by us). */
export function osmLink(lat: string, lng: string): string {
  return `https://www.openstreetmap.org/?mlat=${encodeURIComponent(lat)}&mlon=${encodeURIComponent(lng)}#map=16/${encodeURIComponent(lat)}/${encodeURIComponent(lng)}`;
}
