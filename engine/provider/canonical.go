package provider

import (
	"strconv"

	"github.com/rea-re/rea/internal/jcs"
)

// The list items write their own RFC 8785 form (canon.Appender): a page of
// them is most of an Evidence record, and encoding it through reflection and
// then canonicalizing it again was most of what publishing a page cost
// besides the ledger. Keys are written in UTF-16 order; TestItemsAppendCanonical
// checks every type against jcs.Transform of its encoding/json form.

// AppendCanonical implements canon.Appender.
func (it ProcedureItem) AppendCanonical(b []byte) ([]byte, bool) {
	b = append(b, `{"address":`...)
	b = jcs.AppendText(b, it.Address)
	b = append(b, `,"aliases":`...)
	if it.Aliases == nil {
		b = append(b, "null"...) // as encoding/json; the providers never leave it nil
	} else {
		b = append(b, '[')
		for i, a := range it.Aliases {
			if i > 0 {
				b = append(b, ',')
			}
			b = jcs.AppendText(b, a)
		}
		b = append(b, ']')
	}
	b = append(b, `,"procedure":{"external":`...)
	b = strconv.AppendBool(b, it.Procedure.External)
	b = append(b, `,"thunk":`...)
	b = strconv.AppendBool(b, it.Procedure.Thunk)
	b = append(b, `,"thunk_target":`...)
	b = appendTextOrNull(b, it.Procedure.ThunkTarget)
	b = append(b, `},"value":`...)
	b = jcs.AppendText(b, it.Value)
	return append(b, '}'), true
}

// AppendCanonical implements canon.Appender.
func (it NameItem) AppendCanonical(b []byte) ([]byte, bool) {
	b = append(b, `{"address":`...)
	b = jcs.AppendText(b, it.Address)
	b = append(b, `,"symbol":{"dynamic":`...)
	b = strconv.AppendBool(b, it.Symbol.Dynamic)
	b = append(b, `,"external":`...)
	b = strconv.AppendBool(b, it.Symbol.External)
	b = append(b, `,"primary":`...)
	b = strconv.AppendBool(b, it.Symbol.Primary)
	b = append(b, `,"source":`...)
	b = jcs.AppendText(b, it.Symbol.Source)
	b = append(b, `,"type":`...)
	b = jcs.AppendText(b, it.Symbol.Type)
	b = append(b, `},"value":`...)
	b = jcs.AppendText(b, it.Value)
	return append(b, '}'), true
}

// AppendCanonical implements canon.Appender.
func (it StringItem) AppendCanonical(b []byte) ([]byte, bool) {
	b = append(b, `{"address":`...)
	b = jcs.AppendText(b, it.Address)
	b = append(b, `,"string":{"byte_length":`...)
	b = jcs.AppendInt(b, int64(it.String.ByteLength))
	b = append(b, `,"encoding":`...)
	b = jcs.AppendText(b, it.String.Encoding)
	b = append(b, `,"section":`...)
	b = appendTextOrNull(b, it.String.Section)
	b = append(b, `,"termination":`...)
	b = jcs.AppendText(b, it.String.Termination)
	b = append(b, `},"value":`...)
	b = jcs.AppendText(b, it.Value)
	b = append(b, `,"value_truncated":`...)
	b = strconv.AppendBool(b, it.ValueTruncated)
	return append(b, '}'), true
}

// AppendCanonical implements canon.Appender.
func (it AddressItem) AppendCanonical(b []byte) ([]byte, bool) {
	b = append(b, `{"address":`...)
	b = jcs.AppendText(b, it.Address)
	b = append(b, `,"name":`...)
	b = appendTextOrNull(b, it.Name)
	b = append(b, `,"procedure":`...)
	b = appendProcRef(b, it.Procedure)
	return append(b, '}'), true
}

// AppendCanonical implements canon.Appender.
func (it SearchItem) AppendCanonical(b []byte) ([]byte, bool) {
	b = append(b, `{"address":`...)
	b = jcs.AppendText(b, it.Address)
	b = append(b, `,"procedure":`...)
	b = appendProcRef(b, it.Procedure)
	b = append(b, `,"value":`...)
	b = jcs.AppendText(b, it.Value)
	b = append(b, `,"value_truncated":`...)
	b = strconv.AppendBool(b, it.ValueTruncated)
	return append(b, '}'), true
}

// AppendCanonical implements canon.Appender.
func (it BytesItem) AppendCanonical(b []byte) ([]byte, bool) {
	b = append(b, `{"address":`...)
	b = jcs.AppendText(b, it.Address)
	b = append(b, `,"procedure":`...)
	b = appendProcRef(b, it.Procedure)
	b = append(b, `,"section":`...)
	b = jcs.AppendText(b, it.Section)
	return append(b, '}'), true
}

func appendProcRef(b []byte, p *ProcRef) []byte {
	if p == nil {
		return append(b, "null"...)
	}
	b = append(b, `{"address":`...)
	b = jcs.AppendText(b, p.Address)
	b = append(b, `,"name":`...)
	b = jcs.AppendText(b, p.Name)
	return append(b, '}')
}

func appendTextOrNull(b []byte, s *string) []byte {
	if s == nil {
		return append(b, "null"...)
	}
	return jcs.AppendText(b, *s)
}
