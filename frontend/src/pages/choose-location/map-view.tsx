import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import '../notice/notice.css';

const DEFAULT_CENTER: [number, number] = [22.3193, 114.1694];
const TILES = 'https://{s}.tile.openstreetmap.org/{z}/{x}/{y}.png';

/**
 * A Leaflet map with OpenStreetMap tiles and one marker, loaded only when the browser is online.
 * When the tiles cannot load (offline, blocked) it reports `unavailable` and the page's
 * coordinate and address form is the way to choose. Clicking the map moves the marker (`onPick`).
 */
export function MapView({
  lat,
  lng,
  onPick,
  onUnavailable,
}: {
  lat?: number;
  lng?: number;
  onPick?: (lat: number, lng: number) => void;
  onUnavailable: () => void;
}) {
  const { t } = useTranslation();
  const box = useRef<HTMLDivElement>(null);
  const api = useRef<{ setView: (lat: number, lng: number) => void } | null>(null);
  const [failed, setFailed] = useState(typeof navigator !== 'undefined' && navigator.onLine === false);
  const pick = useRef(onPick);
  pick.current = onPick;
  const down = useRef(onUnavailable);
  down.current = onUnavailable;

  useEffect(() => {
    if (failed) return down.current();
    let disposed = false;
    let cleanup = () => undefined as void;
    void Promise.all([import('leaflet'), import('leaflet/dist/leaflet.css')])
      .then(([L]) => {
        if (disposed || !box.current) return;
        const start: [number, number] = lat !== undefined && lng !== undefined ? [lat, lng] : DEFAULT_CENTER;
        const map = L.map(box.current, { attributionControl: true }).setView(start, 15);
        const marker = L.circleMarker(start, { radius: 9, color: '#1d4ed8', weight: 3, fillOpacity: 0.4 }).addTo(map);
        let loaded = false;
        const tiles = L.tileLayer(TILES, { maxZoom: 19, attribution: '© OpenStreetMap contributors' }).addTo(map);
        tiles.on('tileload', () => (loaded = true));
        tiles.on('tileerror', () => {
          if (!loaded && !disposed) {
            setFailed(true);
            down.current();
          }
        });
        map.on('click', (e: { latlng: { lat: number; lng: number } }) => {
          marker.setLatLng(e.latlng);
          pick.current?.(e.latlng.lat, e.latlng.lng);
        });
        api.current = {
          setView: (a, b) => {
            marker.setLatLng([a, b]);
            map.setView([a, b]);
          },
        };
        cleanup = () => {
          api.current = null;
          map.remove();
        };
      })
      .catch(() => {
        setFailed(true);
        down.current();
      });
    return () => {
      disposed = true;
      cleanup();
    };
    // The map is made once; later coordinates move it (below).
  }, [failed]);

  useEffect(() => {
    if (lat !== undefined && lng !== undefined && Number.isFinite(lat) && Number.isFinite(lng)) api.current?.setView(lat, lng);
  }, [lat, lng]);

  if (failed)
    return (
      <p className="card notice-item__text map-offline" role="status" data-testid="map-offline">
        {t('location.offline')}
      </p>
    );
  return <div ref={box} className="map-picker" role="application" aria-label={t('location.mapLabel')} data-testid="map" />;
}
