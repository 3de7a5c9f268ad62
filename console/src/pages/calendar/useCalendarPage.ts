// A calendar's page state (console/src/model/calendar-page.ts) wired to the API: reading the
// calendar, creating or saving it, and the calendars every other page picks from read again.
import { useCallback, useEffect, useMemo, useReducer, useRef, type FormEvent } from 'react';
import { api } from '../../api.ts';
import { calendarInput, newCalendarForm } from '../../model/calendar-form.ts';
import { calendarPageReducer, initialCalendarPage, isCalendarDirty, messagesFor, SAVED_NOTICE } from '../../model/calendar-page.ts';
import { timeZoneNames } from '../../model/time.ts';
import { guardLeaving, href, navigate, useLeaveGuard } from '../../router.ts';
import { useCalendars } from '../../ui/calendars.tsx';

const browserZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone;

export type CalendarPageModel = ReturnType<typeof useCalendarPage>;

/** `calendarId` null: a new calendar, open weekdays 09:00–17:00 in the browser's zone. */
export function useCalendarPage(calendarId: string | null) {
  const { reload } = useCalendars();
  const [state, dispatch] = useReducer(calendarPageReducer, calendarId, (id) => initialCalendarPage(id === null ? newCalendarForm(browserZone()) : null));
  // A save acts on the form as it is when the user sends it.
  const latest = useRef(state);
  latest.current = state;

  useEffect(() => {
    if (calendarId === null) return;
    api.getCalendar(calendarId).then(
      (calendar) => dispatch({ type: 'loaded', calendar }),
      (error: unknown) => dispatch({ type: 'loadFailed', error }),
    );
  }, [calendarId]);

  const dirty = isCalendarDirty(state);
  useLeaveGuard(dirty, 'This calendar has unsaved changes. Leave without saving them?');

  const save = useCallback(
    async (e: FormEvent) => {
      e.preventDefault();
      const { calendar, form } = latest.current;
      if (!form) return;
      dispatch({ type: 'saveStarted' });
      try {
        const input = calendarInput(form);
        const saved = calendar ? await api.updateCalendar(calendar.id, input) : await api.createCalendar(input);
        dispatch({ type: 'saved', calendar: saved });
        await reload();
        if (!calendar) {
          // Created: on to the list, which shows it.
          guardLeaving(null);
          navigate(href.calendars());
        }
        dispatch({ type: 'saveFinished', notice: calendar ? SAVED_NOTICE : null });
      } catch (error) {
        dispatch({ type: 'saveFailed', error, form });
      }
    },
    [reload],
  );

  const deleted = useCallback(() => {
    dispatch({ type: 'dismiss', what: 'deleting' });
    void reload();
    navigate(href.calendars());
  }, [reload]);

  const timeZone = state.form?.timeZone ?? '';
  const zones = useMemo(() => timeZoneNames(Intl.supportedValuesOf('timeZone'), [timeZone, browserZone()]), [timeZone]);

  /** The server's objections to the input named `key`. */
  const messages = (key: string) => messagesFor(state, key);

  return { state, dispatch, dirty, zones, messages, save, deleted };
}
