'use client';

import { useEffect, useId, useRef, useState, type ReactNode } from 'react';

/**
 * A disclosure menu: a button that opens a popover of links and actions. Closes on Escape, on a
 * click outside and after a choice, and hands focus back to its button.
 */
export function Menu({
  button,
  buttonClassName,
  buttonLabel,
  align = 'start',
  children,
}: {
  button: ReactNode;
  buttonClassName: string;
  buttonLabel: string;
  align?: 'start' | 'end';
  children: (close: () => void) => ReactNode;
}) {
  const [open, setOpen] = useState(false);
  const rootRef = useRef<HTMLDivElement>(null);
  const buttonRef = useRef<HTMLButtonElement>(null);
  const popoverId = useId();

  useEffect(() => {
    if (!open) return;
    const onPointer = (event: PointerEvent) => {
      if (rootRef.current && !rootRef.current.contains(event.target as Node)) setOpen(false);
    };
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') {
        setOpen(false);
        buttonRef.current?.focus();
      }
    };
    document.addEventListener('pointerdown', onPointer);
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('pointerdown', onPointer);
      document.removeEventListener('keydown', onKey);
    };
  }, [open]);

  return (
    <div className="menu" ref={rootRef}>
      <button
        ref={buttonRef}
        type="button"
        className={buttonClassName}
        aria-label={buttonLabel}
        aria-haspopup="true"
        aria-expanded={open}
        aria-controls={open ? popoverId : undefined}
        onClick={() => setOpen((value) => !value)}
      >
        {button}
      </button>
      {open ? (
        <div id={popoverId} className={`menu-popover menu-popover-${align}`}>
          {children(() => setOpen(false))}
        </div>
      ) : null}
    </div>
  );
}
