import type { ChangeEvent } from 'react';
import { HTTP_METHODS, type FieldName, type TaskForm } from '../state/task-form.ts';
import { Field } from './Field.tsx';

type InputProps = (
  f: FieldName,
  hint?: string,
) => {
  id: string;
  value: string;
  onChange: (e: ChangeEvent<HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement>) => void;
};

/** The payload fields of the chosen kind; kinds without their own fields get a JSON editor. */
export function KindFields(props: {
  form: TaskForm;
  message(f: FieldName): string | undefined;
  input: InputProps;
}) {
  const { form, message: msg, input } = props;
  const extra = Object.keys(form.extra);
  const keeps = extra.length > 0 && (
    <p className="muted wide">Also sends, unchanged from the original: {extra.join(', ')}.</p>
  );
  switch (form.kind) {
    case 'shell':
      return (
        <>
          <Field
            id="task-command"
            label="Command"
            hint="the program to run (no shell)"
            message={msg('command')}
            wide
          >
            <input
              {...input('command', 'the program to run (no shell)')}
              placeholder="/usr/local/bin/backup.sh"
            />
          </Field>
          <Field id="task-args" label="Arguments" hint="one per line" message={msg('args')} wide>
            <textarea {...input('args', 'one per line')} rows={3} />
          </Field>
          <Field id="task-cwd" label="Working folder" hint="optional" message={msg('cwd')} wide>
            <input {...input('cwd', 'optional')} />
          </Field>
          {keeps}
        </>
      );
    case 'http':
      return (
        <>
          <Field id="task-method" label="Method" message={msg('method')}>
            <select {...input('method')}>
              {HTTP_METHODS.map((m) => (
                <option key={m}>{m}</option>
              ))}
            </select>
          </Field>
          <Field id="task-url" label="URL" message={msg('url')} wide>
            <input {...input('url')} type="url" placeholder="https://api.example.com/report" />
          </Field>
          <Field
            id="task-headers"
            label="Headers"
            hint="Name: value, one per line"
            message={msg('headers')}
            wide
          >
            <textarea
              {...input('headers', 'Name: value, one per line')}
              rows={3}
              placeholder="Authorization: Bearer …"
            />
          </Field>
          <Field id="task-body" label="Body" hint="sent as is" message={msg('body')} wide>
            <textarea {...input('body', 'sent as is')} rows={4} />
          </Field>
          <Field
            id="task-expectStatus"
            label="Expected status"
            hint="optional, e.g. 201"
            message={msg('expectStatus')}
          >
            <input {...input('expectStatus', 'optional, e.g. 201')} inputMode="numeric" />
          </Field>
          {keeps}
        </>
      );
    case 'sqlite-backup':
      return (
        <>
          <Field id="task-source" label="Database file" message={msg('source')} wide>
            <input {...input('source')} placeholder="/home/me/app/data.db" />
          </Field>
          <Field id="task-destDir" label="Backup folder" message={msg('destDir')} wide>
            <input {...input('destDir')} placeholder="/home/me/backups" />
          </Field>
          <Field id="task-keep" label="Copies to keep" hint="optional" message={msg('keep')}>
            <input {...input('keep', 'optional')} inputMode="numeric" />
          </Field>
          {keeps}
        </>
      );
    case 'sleep':
      return (
        <Field id="task-ms" label="Milliseconds" message={msg('ms')}>
          <input {...input('ms')} inputMode="numeric" placeholder="1000" />
        </Field>
      );
    default:
      return (
        <Field
          id="task-payloadJson"
          label="Payload (JSON)"
          hint="what this kind expects"
          message={msg('payloadJson')}
          wide
        >
          <textarea
            {...input('payloadJson', 'what this kind expects')}
            rows={8}
            className="mono"
            spellCheck={false}
          />
        </Field>
      );
  }
}
