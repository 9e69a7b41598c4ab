import { useTranslation } from 'react-i18next';
import { nftImageSrc, type NftItem, type NftOwner } from '../../api/nft';
import { isAmount, isPositive, mul, sub } from '../../components/decimal';
import { truncate } from '../../components/format';
import './nft.css';

/** Prices are shown truncated (spec), as exact as the market takes them (up to 8 decimals), without trailing zeros: "97.5". */
export const nftPrice = (price: string | null | undefined) => truncate(price ?? '0', 8).replace(/\.?0+$/, '');

export function NftArt({ src, alt, className }: { src: string | null | undefined; alt: string; className?: string }) {
  return <img className={`nft-art ${className ?? ''}`} src={nftImageSrc(src)} alt={alt} loading="lazy" decoding="async" width={160} height={160} />;
}

/** The owner as everyone sees it: the house, "you", or a masked name. */
export function OwnerName({ owner }: { owner: NftOwner }) {
  const { t } = useTranslation();
  if (owner.is_me) return <>{t('nft.you')}</>;
  return <>{owner.type === 'house' ? t('nft.house') : owner.name}</>;
}

/** On sale / not for sale / being sold / mine, in words (not by colour alone). */
export function StateBadge({ item }: { item: Pick<NftItem, 'state' | 'owner'> }) {
  const { t } = useTranslation();
  if (item.state === 'reserved') return <span className="nft-badge">{t('nft.state.reserved')}</span>;
  if (item.state === 'listed') return <span className="nft-badge nft-badge--sale">{t('nft.state.listed')}</span>;
  if (item.owner.is_me) return <span className="nft-badge nft-badge--mine">{t('nft.state.mine')}</span>;
  return <span className="nft-badge">{t('nft.state.held')}</span>;
}

/** The seller's share of a price after the fee, truncated like the server's (fee to 8 decimals). */
export const proceedsOf = (price: string, feeRate: string) => sub(price, mul(price, feeRate, 8), 8);

/** A valid asking price: above 0, at most 8 decimals, at most 12 integer digits. */
export const isPrice = (v: string) => isAmount(v) && isPositive(v) && /^\d{1,12}(\.\d{1,8})?$/.test(v.trim());
