#include "NumberSpinBox.h"

#include <QLocale>
#include <QRegularExpression>

namespace hips {

NumberSpinBox::NumberSpinBox(QWidget* parent) : QDoubleSpinBox(parent) {
    setDecimals(15);  // what setValue rounds to: beyond any value a topology holds
}

QString NumberSpinBox::textFromValue(double value) const {
    QLocale plain = locale();
    plain.setNumberOptions(QLocale::OmitGroupSeparator);
    return plain.toString(value, 'g', 6);
}

double NumberSpinBox::valueFromText(const QString& text) const {
    bool ok = false;
    const double value = locale().toDouble(text.trimmed(), &ok);
    return ok ? value : QLocale::c().toDouble(text.trimmed());
}

// A number in range is acceptable; one on its way to being typed ("", "1e", "0.", "-") is
// intermediate; anything else is refused at the keystroke.
QValidator::State NumberSpinBox::validate(QString& text, int&) const {
    const QString t = text.trimmed();
    bool ok = false;
    double value = locale().toDouble(t, &ok);
    if (!ok) value = QLocale::c().toDouble(t, &ok);
    if (ok) return value >= minimum() && value <= maximum() ? QValidator::Acceptable : QValidator::Intermediate;
    static const QRegularExpression partial(QStringLiteral("^[-+]?[0-9]*[.,]?[0-9]*([eE][-+]?[0-9]*)?$"));
    return partial.match(t).hasMatch() ? QValidator::Intermediate : QValidator::Invalid;
}

}  // namespace hips
